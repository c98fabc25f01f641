#include "compact_float_sum.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace vtx {
namespace compute {

FloatAccumulator &CompactFloatSum::Spill() {
	if (!spill) {
		spill = new FloatAccumulator();
	}
	return *spill;
}

void CompactFloatSum::Flush() {
	if (!used) {
		return;
	}
	// At most kCarryEvery - 1 additions of values below 2^32 per limb: AddLimbs' precondition.
	Spill().AddLimbs(limb, used, offset, additions);
	used = 0;
	additions = 0;
}

bool CompactFloatSum::Cover(uint32_t low, uint32_t top) {
	// At the lower of the two; an empty window a limb lower where that fits (room for smaller values).
	uint32_t from = used ? std::min<uint32_t>(offset, low) : low;
	top = std::max<uint32_t>(top, used ? offset + used : 0);
	if (!used && low > 0 && top < low + kWindow) {
		from = low - 1;
	}
	from = std::min<uint32_t>(from, FloatAccumulator::kLimbs - kWindow);
	if (low < from || top > from + kWindow) {
		return false;
	}
	if (!used) {
		std::memset(limb, 0, sizeof(limb));
	} else if (offset > from) {
		const uint32_t shift = offset - from;
		std::memmove(limb + shift, limb, used * sizeof(int64_t));
		std::memset(limb, 0, shift * sizeof(int64_t));
		used = static_cast<uint8_t>(used + shift);
	}
	offset = static_cast<uint8_t>(from);
	return true;
}

void CompactFloatSum::AddSlow(uint64_t magnitude, bool negative, uint32_t position) {
	if (additions >= FloatAccumulator::kCarryEvery - 1) {
		Flush();
	}
	const uint32_t low = position >> 5;
	if (Cover(low, low + 3)) {
		AddToWindow(magnitude, negative, position);
		used = static_cast<uint8_t>(std::max<uint32_t>(used, low + 3 - offset));
		return;
	}
	const unsigned __int128 shifted = static_cast<unsigned __int128>(magnitude) << (position & 31);
	const int64_t sign = negative ? -1 : 1;
	int64_t three[3] = {sign * static_cast<int64_t>(static_cast<uint32_t>(shifted)),
	                    sign * static_cast<int64_t>(static_cast<uint32_t>(shifted >> 32)),
	                    sign * static_cast<int64_t>(static_cast<uint64_t>(shifted >> 64))};
	Spill().AddLimbs(three, 3, low, 1);
}

void CompactFloatSum::AddTimes(double v, uint64_t count) {
	values += count;
	Decoded d;
	if (!count || !Decode(v, d)) {
		return;
	}
	// mantissa < 2^53: up to 2^11 copies make one product below 2^64.
	for (uint64_t left = count; left > 0;) {
		const uint64_t k = std::min<uint64_t>(left, uint64_t(1) << 11);
		AddUnits(d.mantissa * k, d.negative, d.position);
		left -= k;
	}
}

void CompactFloatSum::AddBatch(const double *v, uint64_t n) {
	values += n;
	for (uint64_t start = 0; start < n; start += 1024) {
		const uint64_t end = std::min<uint64_t>(n, start + 1024);
		// The batch's largest exponent (NaN and infinities aside; subnormals count as 1) ...
		uint32_t top = 1;
		for (uint64_t i = start; i < end; i++) {
			uint64_t bits;
			std::memcpy(&bits, &v[i], sizeof(bits));
			const uint32_t biased = static_cast<uint32_t>(bits >> 52) & 0x7ff;
			top = std::max(top, biased == 0x7ff ? 0u : biased);
		}
		// ... sets a fixed point: every value within 2^62 of it is an integer in units of
		// 2^(top - 1 - 62 - 1074), at most 2^115, and 1024 of them sum below 2^125 in 128 bits.
		// Smaller values (and a fixed point below the grid) go one by one.
		const bool fixed = top >= 63;
		uint64_t total_lo = 0, total_hi = 0; // a 128-bit two's complement total, in registers
		for (uint64_t i = start; i < end; i++) {
			uint64_t bits;
			std::memcpy(&bits, &v[i], sizeof(bits));
			const uint32_t biased = static_cast<uint32_t>(bits >> 52) & 0x7ff;
			const uint32_t e = biased | (biased == 0);
			if (!fixed || biased == 0x7ff || top - e > 62) {
				Decoded d;
				if (Decode(v[i], d)) {
					AddUnits(d.mantissa, d.negative, d.position);
				}
				continue;
			}
			const uint64_t mantissa = (bits & ((uint64_t(1) << 52) - 1)) | (static_cast<uint64_t>(biased != 0) << 52);
			const int64_t sign = -static_cast<int64_t>(bits >> 63);
			const int64_t m = (static_cast<int64_t>(mantissa) ^ sign) - sign;
			const uint32_t shift = 62 - (top - e);
			const uint64_t lo = static_cast<uint64_t>(m) << shift;
			const int64_t hi = (m >> 1) >> (63 - shift); // m >> (64 - shift), also for shift 0
			total_lo += lo;
			total_hi += static_cast<uint64_t>(hi) + (total_lo < lo);
		}
		const __int128 total = static_cast<__int128>((static_cast<unsigned __int128>(total_hi) << 64) | total_lo);
		if (total) {
			const bool negative = total < 0;
			const unsigned __int128 magnitude =
			    negative ? static_cast<unsigned __int128>(-total) : static_cast<unsigned __int128>(total);
			const uint32_t base = top - 1 - 62; // the fixed point's position, in units of 2^-1074
			if (static_cast<uint64_t>(magnitude)) {
				AddUnits(static_cast<uint64_t>(magnitude), negative, base);
			}
			if (static_cast<uint64_t>(magnitude >> 64)) {
				AddUnits(static_cast<uint64_t>(magnitude >> 64), negative, base + 64);
			}
		}
	}
}

void CompactFloatSum::Combine(const CompactFloatSum &o) {
	values += o.values;
	special |= o.special;
	if (o.spill) {
		Spill().Add(*o.spill);
	}
	if (!o.used) {
		return;
	}
	if (additions + o.additions < FloatAccumulator::kCarryEvery - 1 && Cover(o.offset, o.offset + o.used)) {
		for (uint32_t i = 0; i < o.used; i++) {
			limb[o.offset - offset + i] += o.limb[i];
		}
		used = static_cast<uint8_t>(std::max<uint32_t>(used, o.offset + o.used - offset));
		additions += o.additions;
		return;
	}
	Spill().AddLimbs(o.limb, o.used, o.offset, o.additions);
}

ExactSum CompactFloatSum::Finite() const {
	FloatAccumulator total;
	if (spill) {
		total.Add(*spill);
	}
	if (used) {
		total.AddLimbs(limb, used, offset, additions);
	}
	return total.Sum();
}

bool CompactFloatSum::RoundFast(uint64_t divisor, double &out) const {
	if (spill || divisor == 0) {
		return false;
	}
	if (!used) {
		out = 0;
		return true;
	}
	// The window's value as a two's complement integer of 32-bit words (limb k weighs 2^(32 k)),
	// then its magnitude, with 4 zero words below it when dividing (the quotient keeps 64 bits
	// or more, whatever the divisor).
	constexpr uint32_t kBelow = 4;
	uint32_t words[kBelow + kWindow + 3] = {};
	__int128 carry = 0;
	const uint32_t n = used + 3;
	for (uint32_t k = 0; k < n; k++) {
		carry += k < used ? limb[k] : 0;
		words[kBelow + k] = static_cast<uint32_t>(carry);
		carry >>= 32; // arithmetic: the sign is carried along
	}
	const bool negative = carry < 0;
	uint32_t *w = words + kBelow;
	uint32_t count = n;
	if (negative) {
		uint64_t c = 1;
		for (uint32_t k = 0; k < count; k++) {
			c += static_cast<uint32_t>(~w[k]);
			w[k] = static_cast<uint32_t>(c);
			c >>= 32;
		}
	}
	int64_t exponent = 32 * static_cast<int64_t>(offset) - 1074; // of bit 0 of w[0]
	bool sticky = false;
	if (divisor > 1) {
		w = words;
		count += kBelow;
		exponent -= 32 * kBelow;
		unsigned __int128 rem = 0;
		for (uint32_t k = count; k-- > 0;) {
			rem = (rem << 32) | w[k];
			w[k] = static_cast<uint32_t>(rem / divisor);
			rem %= divisor;
		}
		sticky = rem != 0;
	}
	while (count && !w[count - 1]) {
		count--;
	}
	if (!count) {
		return false; // below the grid (a mean of subnormals): the slow path rounds it
	}
	// The top 64 bits, every bit below folded into the lowest (it lies below the guard bit):
	// the conversion to double then rounds them as the whole would round.
	const uint32_t top_bits = 32 - static_cast<uint32_t>(__builtin_clz(w[count - 1]));
	const int64_t bits = 32 * static_cast<int64_t>(count - 1) + top_bits; // significant bits
	const int64_t drop = bits > 64 ? bits - 64 : 0;                       // bits below the 64 kept
	const uint32_t q = static_cast<uint32_t>(drop >> 5), shift = static_cast<uint32_t>(drop & 31);
	const auto word = [&](uint32_t k) -> unsigned __int128 { return k < count ? w[k] : 0; };
	const unsigned __int128 window = word(q) | (word(q + 1) << 32) | (word(q + 2) << 64);
	uint64_t t = static_cast<uint64_t>(window >> shift);
	for (uint32_t k = 0; k < q && !sticky; k++) {
		sticky = w[k] != 0;
	}
	sticky = sticky || (shift && (w[q] & ((uint32_t(1) << shift) - 1)));
	if (sticky) {
		if (bits < 64) {
			return false; // fewer than 64 bits with a remainder: not enough room below the guard bit
		}
		t |= 1;
	}
	const double r = std::ldexp(static_cast<double>(t), static_cast<int>(exponent + drop));
	if (r == 0 || (std::fabs(r) < DBL_MIN)) {
		return false; // among the subnormals the mantissa is shorter: rounded twice here
	}
	out = negative ? -r : r;
	return true;
}

} // namespace compute
} // namespace vtx
