// The exact sum of finite IEEE-754 values, and its one rounding to a double.
//
// Every finite double is an integer multiple of 2^-1074 (the smallest subnormal) below 2^1024,
// so a fixed-point integer whose unit is 2^-1074 holds any sum of them exactly. Zone statistics
// store such a sum (ExactSum), readers add zone sums and decoded rows into a FloatAccumulator
// and round once at the end: the result is the correctly rounded exact sum, the same for any
// zone size, file split, thread count or merge order. (A float converts to a double exactly,
// so FLOAT columns are summed the same way.)
#pragma once
#include "../bytes.hpp"

#include <cstdint>
#include <cstring>
#include <vector>

namespace vtx {

//! An exact sum as zone statistics store it: sign and magnitude, the magnitude a run of 32-bit
//! words whose word k weighs 2^(32 * (low_word + k) - 1074). Zero has no words and no sign.
struct ExactSum {
	bool negative = false;
	uint32_t low_word = 0;
	std::vector<uint32_t> words; //! no zero word at either end

	bool IsZero() const {
		return words.empty();
	}
	//! The nearest double (ties to even); beyond the largest double, ±infinity.
	double Round() const;
	//! The nearest double to this sum divided by `divisor` (> 0), rounded once.
	double RoundDivided(uint64_t divisor) const;

	void Serialize(ByteWriter &w) const;
	//! Refuses a malformed sum (out of range, zero words at an end, a signed zero).
	static ExactSum Deserialize(ByteReader &r);
	bool operator==(const ExactSum &o) const {
		return negative == o.negative && low_word == o.low_word && words == o.words;
	}
	bool operator!=(const ExactSum &o) const {
		return !(*this == o);
	}
};

//! Accumulates finite doubles and exact sums without rounding: 67 signed 64-bit limbs of 32
//! bits each (2^-1074 up to 2^1070, with 31 bits of headroom in every limb), carries propagated
//! only every 2^30 additions. Adding a double touches three limbs. Empty until the first
//! addition, so that states that never sum cost nothing.
class FloatAccumulator {
public:
	static constexpr uint32_t kLimbs = 67;
	//! The most additions between carries: 2^30 values below 2^32 keep a limb below 2^62.
	static constexpr uint32_t kCarryEvery = uint32_t(1) << 30;

	//! The limb that holds the lowest bit of `v` (finite, nonzero) and the two above it.
	static uint32_t LowestLimb(double v) {
		uint64_t bits;
		std::memcpy(&bits, &v, sizeof(bits));
		const uint32_t biased = static_cast<uint32_t>(bits >> 52) & 0x7ff;
		return (biased == 0 ? 0 : biased - 1) >> 5;
	}
	//! Adds finite `v` to three limbs of `limb`, a run of limbs laid out as an accumulator's but
	//! starting at limb `offset` (which must be at most LowestLimb(v)); no carry is made.
	static void AddTo(int64_t *limb, uint32_t offset, double v) {
		uint64_t bits;
		std::memcpy(&bits, &v, sizeof(bits));
		const uint32_t biased = static_cast<uint32_t>(bits >> 52) & 0x7ff;
		uint64_t mantissa = bits & ((uint64_t(1) << 52) - 1);
		uint32_t position = 0; // of the mantissa's lowest bit, in units of 2^-1074
		if (biased != 0) {
			mantissa |= uint64_t(1) << 52;
			position = biased - 1;
		}
		const unsigned __int128 shifted = static_cast<unsigned __int128>(mantissa) << (position & 31);
		const int64_t sign = (bits >> 63) ? -1 : 1;
		limb += (position >> 5) - offset;
		limb[0] += sign * static_cast<int64_t>(static_cast<uint32_t>(shifted));
		limb[1] += sign * static_cast<int64_t>(static_cast<uint32_t>(shifted >> 32));
		limb[2] += sign * static_cast<int64_t>(static_cast<uint64_t>(shifted >> 64));
	}

	//! `v` must be finite (callers count NaN and infinities apart).
	void Add(double v) {
		if (limbs.empty()) {
			Allocate();
		}
		AddTo(limbs.data(), 0, v);
		if (++pending >= kCarryEvery) {
			Carry();
		}
	}
	void Add(const ExactSum &s);
	//! Adds `count` limbs laid out as this accumulator's, the first at limb `offset`, each the
	//! sum of at most `additions` (<= 2^30) values below 2^32 in magnitude: a caller's own
	//! narrow accumulator (see LimbWindow).
	void AddLimbs(const int64_t *add, uint32_t count, uint32_t offset, uint64_t additions);
	void Add(const FloatAccumulator &o);
	bool Empty() const {
		return limbs.empty();
	}
	//! The exact value accumulated so far.
	ExactSum Sum() const;

private:
	void Allocate();
	//! Brings limbs 0..kLimbs-2 into [0, 2^32), the top limb keeping the sign.
	void Carry();

	std::vector<int64_t> limbs;
	uint64_t pending = 0; //! additions since the last carry
};

} // namespace vtx
