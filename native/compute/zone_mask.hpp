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
	//! One byte per row of the zone, 1 where every filter given to And() holds.
	const uint8_t *Rows();

private:
	std::vector<uint8_t> mask_, scratch_;
	uint64_t rows_ = 0;
	bool written_ = false;
};

} // namespace compute
} // namespace vtx
