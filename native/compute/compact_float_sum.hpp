// An exact, order-independent sum of doubles in a small fixed-size state: the aggregate state a
// query engine keeps per group, 40 bytes. Most columns' values lie within a few dozen powers of
// two of each other, so one 128-bit two's complement integer, counted in units of 2^(scale -
// 1074) with the scale set by the first value, holds their sum exactly. A value finer than the
// scale moves it down while the integer has room; a value too coarse for it, or a sum that would
// overflow it, sends the integer to a full FloatAccumulator allocated only then.
// The result is FloatAccumulator's: the exact sum, rounded once, whatever the order of additions
// and merges. NaN and infinities are noted apart, as zone statistics count them.
#pragma once
#include "../format/stats/exact_sum.hpp"

#include <cstdint>
#include <cstring>

namespace vtx {
namespace compute {

struct CompactFloatSum {
	enum Special : uint8_t { NAN_SEEN = 1, POS_INF = 2, NEG_INF = 4 };
	static constexpr int16_t kNoTop = INT16_MIN;
	//! Above every position (at most 2045), so that no value lands on an unseated grid.
	static constexpr uint16_t kUnseated = UINT16_MAX;

	// The 128-bit integer as two words: __int128 would make the state 16-byte aligned, and
	// engines lay states out at 8.
	uint64_t lo;
	uint64_t hi;
	FloatAccumulator *spill; //! owned; null until needed
	uint64_t values;         //! non-NULL values added, NaN and infinities included
	uint16_t scale;          //! bit 0 of the integer weighs 2^(scale - 1074); kUnseated until the
	                         //! first nonzero value sets it
	uint8_t special;         //! Special bits seen
	int16_t batch_top;       //! AddBatchInLevels: 2^batch_top bounded the last batch, or kNoTop

	//! The state as the engine allocates it (no constructor runs): call before use.
	void Initialize() {
		lo = hi = 0;
		spill = nullptr;
		values = 0;
		scale = kUnseated;
		special = 0;
		batch_top = kNoTop;
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
		// Inline only the common case: a normal double landing on the grid (an unseated state's
		// scale lies above every position, so it never does); everything else out of line.
		uint64_t bits;
		std::memcpy(&bits, &v, sizeof(bits));
		if ((bits << 1) == 0) {
			return; // ±0, as common as any value in many columns: no call out of line for it
		}
		const uint32_t position = (static_cast<uint32_t>(bits >> 52) & 0x7ff) - 1; // wraps for subnormals
		const uint32_t shift = position - scale;
		if (position < 0x7fe && shift <= 126 - 53) {
			const u128 magnitude = static_cast<u128>((bits & ((uint64_t(1) << 52) - 1)) | (uint64_t(1) << 52)) << shift;
			const i128 add = (bits >> 63) ? -static_cast<i128>(magnitude) : static_cast<i128>(magnitude);
			i128 sum;
			if (!__builtin_add_overflow(Integer(), add, &sum)) {
				SetInteger(sum);
				return;
			}
		}
		AddRare(v);
	}
	//! `v` added `count` times: once, as the exact product of its mantissa and `count` (near the
	//! top of the doubles, 2^11 copies at a time: engines repeat a constant a vector at a time).
	void AddTimes(double v, uint64_t count);
	//! `n` doubles at once (no NULLs among them), 1024 at a time: split exactly into integers
	//! at up to three fixed points by floating-point rounding (AddBatchInLevels), or else those
	//! within 2^62 of the batch's largest summed as 128-bit fixed-point integers; each total is
	//! added once.
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
	//! Adds that sum to `total` (no ExactSum made on the way: a grouped zone adds one per group).
	void AddTo(FloatAccumulator &total) const;
	//! The finite values' exact sum divided by `divisor` (1: the sum itself), rounded once;
	//! false where only the slow path (Finite) can say (a spill, a result among the subnormals).
	bool RoundFast(uint64_t divisor, double &out) const;

private:
	using u128 = unsigned __int128;
	using i128 = __int128;
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
	i128 Integer() const {
		return static_cast<i128>((static_cast<u128>(hi) << 64) | lo);
	}
	void SetInteger(i128 v) {
		lo = static_cast<uint64_t>(v);
		hi = static_cast<uint64_t>(static_cast<u128>(v) >> 64);
	}
	//! Adds magnitude * 2^(position - 1074), negated if `negative` (0 < magnitude < 2^127).
	void AddWide(u128 magnitude, bool negative, uint32_t position) {
		const uint32_t shift = position - scale;
		// In place where the value lands on the integer's grid and its shifted magnitude keeps
		// the sign bit clear; an overflowing sum goes the slow way too.
		if (position >= scale && shift < 127 && (magnitude >> (126 - shift)) == 0) {
			const i128 add = static_cast<i128>(magnitude << shift);
			i128 sum;
			if (!__builtin_add_overflow(Integer(), negative ? -add : add, &sum)) {
				SetInteger(sum);
				return;
			}
		}
		AddSlow(magnitude, negative, position);
	}
	void AddSlow(u128 magnitude, bool negative, uint32_t position);
	//! Add's uncommon cases: zeros, subnormals, NaN and infinities, a value off the grid.
	void AddRare(double v);
	//! Up to 1024 values (no NULLs) in kLevels vectorizable passes of floating-point rounding;
	//! false (nothing added) where their exponents spread too wide, or NaN and infinities occur.
	static constexpr uint32_t kLevels = 3;
	bool AddBatchInLevels(const double *v, uint32_t n);
	//! Moves the integer into the spill accumulator and empties it.
	void Flush();
	FloatAccumulator &Spill();
};

static_assert(sizeof(CompactFloatSum) == 40, "the per-group state this file promises");

} // namespace compute
} // namespace vtx
