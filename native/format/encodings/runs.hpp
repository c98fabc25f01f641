// Run-length encoding (encoding 3, RLE) of fixed-width values: each run's value and the row
// its run ends at. Also counts runs for the choice of encoding, with the frame's ends in the same
// pass (FixedValues); filters evaluate runs once each (compute/predicate.cpp).
#pragma once
#include "encoding.hpp"
#include "encoding_internal.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

namespace vtx {
namespace encoding_internal {

//! The number of runs of equal values.
template <class U>
uint64_t Runs(const U *vals, uint64_t n) {
	uint64_t runs = n ? 1 : 0;
	for (uint64_t i = 1; i < n; i++) {
		runs += vals[i] != vals[i - 1];
	}
	return runs;
}

//! Runs(), and the smallest and largest of the values with `sign` flipped (the frame's ends).
template <class U>
uint64_t RunsAndRange(const U *vals, uint64_t n, uint64_t sign, uint64_t &omin, uint64_t &omax) {
	uint64_t runs = n ? 1 : 0, lo = ~uint64_t(0), hi = 0;
	if (n) {
		lo = hi = static_cast<uint64_t>(vals[0]) ^ sign;
	}
	for (uint64_t i = 1; i < n; i++) {
		runs += vals[i] != vals[i - 1];
		const uint64_t o = static_cast<uint64_t>(vals[i]) ^ sign;
		lo = o < lo ? o : lo;
		hi = o > hi ? o : hi;
	}
	omin = lo;
	omax = hi;
	return runs;
}

//! Run-length payload: the runs' values, then their ends.
template <class U>
void WriteRuns(ByteWriter &out, const U *vals, uint64_t n) {
	std::vector<uint32_t> ends;
	std::vector<U> run_values;
	for (uint64_t i = 0; i < n; i++) {
		if (i + 1 == n || vals[i + 1] != vals[i]) {
			run_values.push_back(vals[i]);
			ends.push_back(static_cast<uint32_t>(i + 1));
		}
	}
	out.Var(run_values.size());
	out.Bytes(run_values.data(), run_values.size() * sizeof(U));
	out.Bytes(ends.data(), ends.size() * 4);
}

//! The end of run k of run-length values left packed (Read checks them).
inline uint64_t RunEnd(const DeferredValues &f, uint64_t k) {
	return LoadValue<uint32_t>(f.words + k * 4);
}


//! The run that holds `row` (< the chunk's rows): the first whose end lies past it.
inline uint64_t RunOf(const DeferredValues &f, uint64_t row) {
	uint64_t lo = 0, hi = f.size;
	while (lo < hi) {
		const uint64_t mid = lo + (hi - lo) / 2;
		if (RunEnd(f, mid) > row) {
			hi = mid;
		} else {
			lo = mid + 1;
		}
	}
	return lo;
}

struct RunsCodec : EntryCodec<RunsCodec> {
	template <class U>
	struct Choice {
		Offer Make(const FixedValues<U> &v, uint64_t) {
			return Offer {10 + v.runs * (sizeof(U) + 4)};
		}
		void Write(const FixedValues<U> &v, ByteWriter &out) {
			WriteRuns<U>(out, v.vals, v.n);
		}
	};

	//! Run-length values: the runs' values and their ends, checked to cover the n rows in order.
	template <class U>
	static DeferredValues Read(uint64_t n, ByteReader &r) {
		DeferredValues f;
		f.encoding = static_cast<uint8_t>(Encoding::RLE);
		f.size = r.Count(sizeof(U) + 4);
		f.entries = r.Take(f.size * sizeof(U));
		f.words = r.Take(f.size * 4);
		uint64_t pos = 0;
		for (uint64_t k = 0; k < f.size; k++) {
			const uint64_t end = RunEnd(f, k);
			if (end <= pos || end > n) {
				throw FormatError("run-length ends are not increasing within the zone");
			}
			pos = end;
		}
		if (pos != n) {
			throw FormatError("run-length runs cover " + std::to_string(pos) + " of " + std::to_string(n) + " rows");
		}
		return f;
	}

	//! Rows [b, e) of run-length values into dst[0, e - b).
	template <class U>
	static void Rows(const ColumnType &, const DeferredValues &f, uint64_t b, uint64_t e, U *dst) {
		// A run ending kSpan rows or more before e is written kSpan values a step, past its end (the
		// runs after it write over the excess): runs are mostly short, and a loop per value would end
		// each with a mispredicted branch.
		constexpr uint64_t kSpan = 16;
		for (uint64_t k = RunOf(f, b), pos = b; pos < e; k++) {
			const uint64_t end = std::min(RunEnd(f, k), e);
			const U v = LoadValue<U>(f.entries + k * sizeof(U));
			if (end + kSpan <= e) {
				U *out = dst + (pos - b);
				U *const stop = dst + (end - b);
				do {
					for (uint64_t j = 0; j < kSpan; j++) {
						out[j] = v;
					}
					out += kSpan;
				} while (out < stop);
			} else {
				for (uint64_t p = pos; p < end; p++) {
					dst[p - b] = v;
				}
			}
			pos = end;
		}
	}

	//! Per row of [begin, end), its run.
	static void EntryIndexes(const DeferredValues &f, uint64_t begin, uint64_t end, uint32_t *out) {
		for (uint64_t k = begin < end ? RunOf(f, begin) : 0, pos = begin; pos < end; k++) {
			const uint64_t stop = std::min(RunEnd(f, k), end);
			std::fill(out + (pos - begin), out + (stop - begin), static_cast<uint32_t>(k));
			pos = stop;
		}
	}

	//! The values at rows base + rows[i], ascending, into out[i]: one search for the first row, then
	//! forward through the runs.
	template <class U>
	static void RowsAt(const ColumnType &, const DeferredValues &f, uint64_t base, const uint32_t *rows, uint64_t n,
	                   U *out) {
		for (uint64_t i = 0, k = n ? RunOf(f, base + rows[0]) : 0; i < n; i++) {
			while (RunEnd(f, k) <= base + rows[i]) {
				k++;
			}
			out[i] = LoadValue<U>(f.entries + k * sizeof(U));
		}
	}
};

} // namespace encoding_internal
} // namespace vtx
