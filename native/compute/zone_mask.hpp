// The rows of one zone that pass its filters, built one filter at a time.
#pragma once
#include "predicate.hpp"

#include <cstdint>
#include <vector>

namespace vtx {
namespace compute {

//! Callers skip the filters a zone's statistics prove true on every row, so a zone may end with
//! no filter evaluated at all. The mask then selects every row: it is never read unwritten,
//! whatever the classification that chose the filters. Its buffers are reused from zone to zone.
class ZoneMask {
public:
	//! Starts a zone of `rows` rows, every row selected.
	void Begin(uint64_t rows);
	//! Keeps only the rows where `p` holds on `chunk`, which must hold the whole zone.
	void And(const Predicate &p, const ColumnType &type, const DecodedColumn &chunk);
	//! Keeps only the rows whose byte in `rows` (one per row of the zone) is nonzero.
	void AndRows(const uint8_t *rows);
	//! A filter on one dictionary-coded string column, decided once per dictionary entry:
	//! `truth[e]` for entry e, `truth[dictionary size]` for a NULL row. Keeps only the rows
	//! whose entry holds. After DeferEntries(), where it is the zone's first filter it is kept
	//! as it is and written per row only once another filter or Rows() needs that.
	void AndEntries(const uint8_t *truth, const DecodedColumn &chunk);
	//! For a caller that can aggregate per dictionary entry (asking Entries()) and keeps each
	//! entry filter's chunk alive until the zone is done (the truths are copied).
	void DeferEntries() {
		defer_entries_ = true;
	}
	//! Where the zone's one filter so far is an entry filter: its chunk, with its truths in
	//! `truth` (one per dictionary entry, then NULL's). Null otherwise.
	const DecodedColumn *Entries(const uint8_t *&truth) const;
	//! One byte per row of the zone, 1 where every filter given to And() holds.
	const uint8_t *Rows();
	//! As Rows(), but null while no filter has been given: every row is still selected.
	const uint8_t *Kept();

private:
	//! The buffer the next filter writes: the mask itself for the first, else scratch to AND in.
	uint8_t *Target();
	void Combine();
	//! Writes a deferred entry filter into the mask.
	void WriteEntries();
	void WriteEntryRows(const uint8_t *truth, const DecodedColumn &chunk);

	std::vector<uint8_t> mask_, scratch_;
	std::vector<uint8_t> entry_truth_;
	const DecodedColumn *entries_ = nullptr; //! a deferred entry filter's chunk
	bool defer_entries_ = false;
	uint64_t rows_ = 0;
	bool written_ = false;
};

} // namespace compute
} // namespace vtx
