#include "zone_mask.hpp"

#include "selection.hpp"

#include <algorithm>
#include <stdexcept>

namespace vtx {
namespace compute {

void ZoneMask::Begin(uint64_t rows) {
	rows_ = rows;
	written_ = false;
	entries_ = nullptr;
	mask_.resize(rows);
}

void ZoneMask::And(const Predicate &p, const ColumnType &type, const DecodedColumn &chunk) {
	// Values left packed (DecodedColumn::deferred) are decoded by the predicate's evaluation.
	if (chunk.count != rows_ || (!chunk.deferred.encoding && (chunk.decoded_begin != 0 || chunk.decoded_end < rows_))) {
		throw std::logic_error("filtering rows the reader did not decode");
	}
	WriteEntries();
	if (!written_) {
		EvaluatePredicate(p, type, chunk, mask_.data());
		written_ = true;
		return;
	}
	scratch_.resize(rows_);
	EvaluatePredicate(p, type, chunk, scratch_.data());
	AndSelection(mask_.data(), scratch_.data(), rows_);
}

uint8_t *ZoneMask::Target() {
	WriteEntries();
	if (!written_) {
		return mask_.data();
	}
	scratch_.resize(rows_);
	return scratch_.data();
}

void ZoneMask::Combine() {
	if (written_) {
		AndSelection(mask_.data(), scratch_.data(), rows_);
	}
	written_ = true;
}

void ZoneMask::AndRows(const uint8_t *rows) {
	uint8_t *out = Target();
	for (uint64_t i = 0; i < rows_; i++) {
		out[i] = rows[i] != 0;
	}
	Combine();
}

void ZoneMask::AndEntries(const uint8_t *truth, const DecodedColumn &chunk) {
	if (chunk.count != rows_ || chunk.codes.size() != rows_) {
		throw std::logic_error("filtering rows by dictionary entries the reader did not decode");
	}
	if (defer_entries_ && !written_ && !entries_) {
		entry_truth_.assign(truth, truth + chunk.dictionary.size() + 1);
		entries_ = &chunk;
		return;
	}
	WriteEntryRows(truth, chunk);
}

void ZoneMask::WriteEntryRows(const uint8_t *truth, const DecodedColumn &chunk) {
	uint8_t *out = Target();
	const uint32_t *codes = chunk.codes.data();
	const uint8_t null_truth = truth[chunk.dictionary.size()];
	if (chunk.all_valid) {
		for (uint64_t i = 0; i < rows_; i++) {
			out[i] = truth[codes[i]];
		}
	} else {
		// The bitmap's address held in a local: stores to `out` (bytes) could alias it otherwise.
		const uint64_t *valid = chunk.validity.data();
		for (uint64_t i = 0; i < rows_; i++) {
			out[i] = (valid[i >> 6] >> (i & 63)) & 1 ? truth[codes[i]] : null_truth;
		}
	}
	Combine();
}

const DecodedColumn *ZoneMask::Entries(const uint8_t *&truth) const {
	truth = entries_ ? entry_truth_.data() : nullptr;
	return entries_;
}

void ZoneMask::WriteEntries() {
	if (!entries_) {
		return;
	}
	auto &chunk = *entries_;
	entries_ = nullptr;
	WriteEntryRows(entry_truth_.data(), chunk);
}

const uint8_t *ZoneMask::Kept() {
	WriteEntries();
	return written_ ? mask_.data() : nullptr;
}

const uint8_t *ZoneMask::Rows() {
	WriteEntries();
	if (!written_) {
		std::fill(mask_.begin(), mask_.end(), uint8_t(1));
		written_ = true;
	}
	return mask_.data();
}

} // namespace compute
} // namespace vtx
