// Selection masks: one byte per row of a zone, 1 where the row passes the filters, 0 where it
// does not, as EvaluatePredicate writes them. Worked on eight rows at a time.
#pragma once
#include <cstdint>
#include <vector>

namespace vtx {
struct DecodedColumn;
namespace compute {

//! mask[i] &= other[i] for the first n rows.
void AndSelection(uint8_t *mask, const uint8_t *other, uint64_t n);

//! mask[i] &= bit i of `validity` (LSB first) for the first n rows: eight rows a step. A loop that
//! read each row's bit through the chunk reloaded the bitmap's address every row (the mask's
//! bytes may alias it), a tenth of a star join's filtered fact scan.
void AndValidity(uint8_t *mask, const uint64_t *validity, uint64_t n);

struct SelectionSummary {
	uint64_t selected = 0; //! rows whose byte is 1
	uint64_t first = 0;    //! the selected rows lie in [first, end) (both 0 when none is)
	uint64_t end = 0;
	//! The selected rows are one contiguous run (a range filter on a sorted column).
	bool OneRun() const {
		return selected > 0 && end - first == selected;
	}
};

SelectionSummary Summarize(const uint8_t *mask, uint64_t n);

//! Writes the positions of the selected rows among the first n (n < 2^32) to `out`, in order,
//! and returns how many there are. `out` must hold n entries.
uint32_t SelectedRows(const uint8_t *mask, uint32_t n, uint32_t *out);

//! For a dictionary-coded chunk (DecodedColumn::codes): sets used[e] to 1 for each entry that a
//! row of [begin, end) selected (null `selected`: every row) and valid uses, 0 for the others, and
//! returns the number of such rows. What a dictionary's consumers then visit once per entry.
uint64_t UsedEntries(const DecodedColumn &chunk, const uint8_t *selected, uint64_t begin, uint64_t end,
                     std::vector<uint8_t> &used);

} // namespace compute
} // namespace vtx
