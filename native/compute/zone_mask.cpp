#include "zone_mask.hpp"

#include "selection.hpp"

#include <algorithm>
#include <stdexcept>

namespace vtx {
namespace compute {

void ZoneMask::Begin(uint64_t rows) {
	rows_ = rows;
	written_ = false;
	mask_.resize(rows);
}

void ZoneMask::And(const Predicate &p, const ColumnType &type, const DecodedColumn &chunk) {
	if (chunk.count != rows_ || chunk.decoded_begin != 0 || chunk.decoded_end < rows_) {
		throw std::logic_error("filtering rows the reader did not decode");
	}
	if (!written_) {
		EvaluatePredicate(p, type, chunk, mask_.data());
		written_ = true;
		return;
	}
	scratch_.resize(rows_);
	EvaluatePredicate(p, type, chunk, scratch_.data());
	AndSelection(mask_.data(), scratch_.data(), rows_);
}

const uint8_t *ZoneMask::Rows() {
	if (!written_) {
		std::fill(mask_.begin(), mask_.end(), uint8_t(1));
		written_ = true;
	}
	return mask_.data();
}

} // namespace compute
} // namespace vtx
