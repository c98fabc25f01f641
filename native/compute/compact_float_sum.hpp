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
		Decoded d;
		if (Decode(v, d)) {
			AddUnits(d.mantissa, d.negative, d.position);
		}
	}
	//! `v` added `count` times: once, as the exact product of its mantissa and `count`.
	void AddTimes(double v, uint64_t count);
	//! `n` doubles at once (no NULLs among them): those within 2^62 of the batch's largest are
	//! summed as 128-bit fixed-point integers, and that total goes to the window once.
	void AddBatch(const double *v, uint64_t n);
	//! Adds another state (which is left as it was).
	void Combine(const CompactFloatSum &o);
	//! The exact sum of the finite values, rounded once; their mean (of all `values`: call it only
	//! where no NaN or infinity was added).
	double Sum() const {
		double r;
		return RoundFast(1, r) ? r : Finite().Round();
	}
	double Mean() const {
		double r;
		return RoundFast(values, r) ? r : Finite().RoundDivided(values);
	}
	//! The exact sum of the finite values.
	ExactSum Finite() const;
	//! The finite values' exact sum divided by `divisor` (1: the sum itself), rounded once;
	//! false where only the slow path (Finite) can say (a spill, a result among the subnormals).
	bool RoundFast(uint64_t divisor, double &out) const;

private:
	//! A finite nonzero double as (-1)^negative * mantissa * 2^(position - 1074).
	struct Decoded {
		uint64_t mantissa;
		uint32_t position;
		bool negative;
	};
	//! False for ±0 and for NaN and infinities (noted in `special`).
	bool Decode(double v, Decoded &d) {
		uint64_t bits;
		std::memcpy(&bits, &v, sizeof(bits));
		const uint32_t biased = static_cast<uint32_t>(bits >> 52) & 0x7ff;
		const uint64_t fraction = bits & ((uint64_t(1) << 52) - 1);
		if (biased == 0x7ff) {
			special |= fraction ? NAN_SEEN : (bits >> 63) ? NEG_INF : POS_INF;
			return false;
		}
		// Subnormals sit at the lowest normal exponent, without the implicit bit.
		d.mantissa = fraction | (static_cast<uint64_t>(biased != 0) << 52);
		d.position = biased ? biased - 1 : 0;
		d.negative = bits >> 63;
		return d.mantissa != 0;
	}
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
	//! Moves the window so that it covers limbs [low, top) besides what it holds, where that fits.
	bool Cover(uint32_t low, uint32_t top);
	FloatAccumulator &Spill();
};

} // namespace compute
} // namespace vtx
