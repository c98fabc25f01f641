// An exact, order-independent sum of doubles in a small fixed-size state: the aggregate state a
// query engine keeps per group. Most columns' values lie within a few powers of 2^32 of each
// other, so a window of kWindow 32-bit limbs (in int64 accumulators, as FloatAccumulator's)
// holds their sum exactly and follows the values as they arrive; a value outside it, or a
// window that has taken 2^30 additions, goes to a full FloatAccumulator allocated only then.
// The result is FloatAccumulator's: the exact sum, rounded once, whatever the order of additions
// and merges. NaN and infinities are noted apart, as zone statistics count them.
#pragma once
#include "../format/exact_sum.hpp"

#include <cstdint>
#include <cstring>

namespace vtx {
namespace compute {

struct CompactFloatSum {
	static constexpr uint32_t kWindow = 4;
	enum Special : uint8_t { NAN_SEEN = 1, POS_INF = 2, NEG_INF = 4 };

	int64_t limb[kWindow];
	FloatAccumulator *spill; //! owned; null until needed
	uint64_t values;         //! non-NULL values added, NaN and infinities included
	uint32_t additions;      //! to the window since it was last emptied
	uint8_t offset;          //! the limb (of FloatAccumulator's 67) that limb[0] stands for
	uint8_t used;            //! limbs [0, used) of the window hold something; 0: empty
	uint8_t special;         //! Special bits seen

	//! The state as the engine allocates it (no constructor runs): call before use.
	void Initialize() {
		spill = nullptr;
		values = 0;
		additions = 0;
		offset = used = special = 0;
	}
	void Destroy() {
		delete spill;
		spill = nullptr;
	}
	bool HasNaN() const {
		return special & NAN_SEEN;
	}
	bool HasPosInf() const {
		return special & POS_INF;
	}
	bool HasNegInf() const {
		return special & NEG_INF;
	}

	void Add(double v) {
		values++;
		uint64_t bits;
		std::memcpy(&bits, &v, sizeof(bits));
		const uint32_t biased = static_cast<uint32_t>(bits >> 52) & 0x7ff;
		uint64_t mantissa = bits & ((uint64_t(1) << 52) - 1);
		if (biased == 0x7ff) {
			special |= mantissa ? NAN_SEEN : (bits >> 63) ? NEG_INF : POS_INF;
			return;
		}
		if (biased) {
			mantissa |= uint64_t(1) << 52;
		} else if (!mantissa) {
			return; // ±0
		}
		AddUnits(mantissa, bits >> 63, biased ? biased - 1 : 0);
	}
	//! `n` doubles at once (no NULLs among them): values of one exponent are added as integers
	//! first, then each exponent's total once into the window.
	void AddBatch(const double *v, uint64_t n);
	//! Adds another state (which is left as it was).
	void Combine(const CompactFloatSum &o);
	//! The exact sum of the finite values.
	ExactSum Finite() const;
	//! The finite values' exact sum divided by `divisor` (1: the sum itself), rounded once;
	//! false where only the slow path (Finite) can say (a spill, a result among the subnormals).
	bool RoundFast(uint64_t divisor, double &out) const;

private:
	//! Adds magnitude * 2^(position - 1074), negated if `negative` (magnitude < 2^64).
	void AddUnits(uint64_t magnitude, bool negative, uint32_t position) {
		const uint32_t low = position >> 5;
		if (used && low >= offset && low + 3u <= offset + kWindow && additions < FloatAccumulator::kCarryEvery - 1) {
			AddToWindow(magnitude, negative, position);
			if (low + 3u - offset > used) {
				used = static_cast<uint8_t>(low + 3u - offset);
			}
			return;
		}
		AddSlow(magnitude, negative, position);
	}
	void AddToWindow(uint64_t magnitude, bool negative, uint32_t position) {
		const unsigned __int128 shifted = static_cast<unsigned __int128>(magnitude) << (position & 31);
		const int64_t sign = negative ? -1 : 1;
		int64_t *l = limb + ((position >> 5) - offset);
		l[0] += sign * static_cast<int64_t>(static_cast<uint32_t>(shifted));
		l[1] += sign * static_cast<int64_t>(static_cast<uint32_t>(shifted >> 32));
		l[2] += sign * static_cast<int64_t>(static_cast<uint64_t>(shifted >> 64));
		additions++;
	}
	void AddSlow(uint64_t magnitude, bool negative, uint32_t position);
	//! Moves the window's sum into the spill accumulator and empties the window.
	void Flush();
	//! Makes the window cover limbs [from, from + kWindow) if what it holds fits there.
	bool Rebase(uint32_t from);
	FloatAccumulator &Spill();
};

} // namespace compute
} // namespace vtx
