#include "compact_float_sum.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace vtx {
namespace compute {

namespace {

using u128 = unsigned __int128;

//! Room below a first value for finer ones; leaves 126 - 53 - 32 = 41 bits for the sum to grow.
constexpr uint32_t kBelow = 32;
//! The highest scale: an integer of 127 bits above it still ends inside FloatAccumulator's limbs
//! (62 * 32 + 127 < 67 * 32), five limbs from limb 62 on.
constexpr uint32_t kTopScale = 62 * 32;

using i128 = __int128;

//! |x| (2^127 for the most negative): the magnitude the adds and the spill take with a sign.
u128 Magnitude(i128 x) {
	return x < 0 ? -static_cast<u128>(x) : static_cast<u128>(x);
}

uint32_t BitLength(u128 v) {
	const uint64_t hi = static_cast<uint64_t>(v >> 64);
	return hi ? 128 - static_cast<uint32_t>(__builtin_clzll(hi))
	          : v ? 64 - static_cast<uint32_t>(__builtin_clzll(static_cast<uint64_t>(v))) : 0;
}

//! Adds magnitude * 2^(position - 1074), negated if `negative`, to an accumulator: its 32-bit
//! digits, each below 2^32 as AddLimbs wants, from limb position / 32 on.
void AddExactly(FloatAccumulator &to, u128 magnitude, bool negative, uint32_t position) {
	const uint32_t shift = position & 31;
	const int64_t sign = negative ? -1 : 1;
	int64_t digits[5];
	uint32_t count = 0;
	const u128 low = magnitude << shift;                           // bits 0..127 of the shifted value
	const uint64_t top = shift ? static_cast<uint64_t>(magnitude >> (128 - shift)) : 0; // bits 128..
	for (uint32_t k = 0; k < 4; k++) {
		digits[k] = sign * static_cast<int64_t>(static_cast<uint32_t>(low >> (32 * k)));
	}
	digits[4] = sign * static_cast<int64_t>(static_cast<uint32_t>(top));
	for (count = 5; count > 0 && digits[count - 1] == 0; count--) {
	}
	if (count) {
		to.AddLimbs(digits, count, position >> 5, 1);
	}
}

} // namespace

FloatAccumulator &CompactFloatSum::Spill() {
	if (!spill) {
		spill = new FloatAccumulator();
	}
	return *spill;
}

void CompactFloatSum::Flush() {
	const i128 x = Integer();
	if (x) {
		AddExactly(Spill(), Magnitude(x), x < 0, scale);
		SetInteger(0);
	}
}

void CompactFloatSum::AddSlow(u128 magnitude, bool negative, uint32_t position) {
	const uint32_t bits = BitLength(magnitude);
	if (scale != kUnseated && position < scale) {
		// Finer than the grid: move the grid down (the integer shifted up) while the integer keeps
		// room for this value and for growth; otherwise this value alone goes to the spill.
		const i128 x = Integer();
		const uint32_t used = BitLength(Magnitude(x));
		const uint32_t target = position >= kBelow ? position - kBelow : 0;
		const uint32_t down = scale - target;
		if (used + down <= 120 && bits + (position - target) <= 120) {
			SetInteger(static_cast<i128>(static_cast<u128>(x) << down));
			scale = static_cast<uint16_t>(target);
			const i128 add = static_cast<i128>(magnitude << (position - target));
			SetInteger(Integer() + (negative ? -add : add)); // both below 2^120: no overflow
			return;
		}
		AddExactly(Spill(), magnitude, negative, position);
		return;
	}
	// Coarser than the grid holds, or a sum that outgrew it: the integer goes to the spill and
	// the grid is set again from this value.
	Flush();
	uint32_t target = position >= kBelow ? position - kBelow : 0;
	if (bits + (position - target) > 120) {
		target = bits >= 120 ? position : position - (120 - bits);
	}
	target = std::min(target, kTopScale);
	if (bits > 126 || bits + (position - target) > 126) {
		AddExactly(Spill(), magnitude, negative, position);
		return;
	}
	scale = static_cast<uint16_t>(target);
	const i128 add = static_cast<i128>(magnitude << (position - target));
	SetInteger(negative ? -add : add);
}

void CompactFloatSum::AddRare(double v) {
	Decoded d;
	if (Decode(v, d)) {
		AddWide(d.mantissa, d.negative, d.position);
	}
}

void CompactFloatSum::AddTimes(double v, uint64_t count) {
	values += count;
	Decoded d;
	if (!count || !Decode(v, d)) {
		return;
	}
	if (d.position <= kTopScale) {
		// mantissa < 2^53 times count < 2^64: below 2^117, and its limbs end below limb 67.
		AddWide(static_cast<u128>(d.mantissa) * count, d.negative, d.position);
		return;
	}
	// Near the top of the doubles, products below 2^64 (2^11 copies at a time) keep that bound.
	for (uint64_t left = count; left > 0;) {
		const uint64_t k = std::min<uint64_t>(left, uint64_t(1) << 11);
		AddWide(d.mantissa * k, d.negative, d.position);
		left -= k;
	}
}

namespace {

//! Sets 2^t above the largest magnitude among `v`; false where that is no use to the levels (all
//! zero, an infinity, a value near the top of the doubles). A NaN compares false here and is
//! caught by the levels' residual.
bool BatchTop(const double *v, uint32_t n, int &t) {
	double top[4] = {0, 0, 0, 0}; // four independent chains
	uint32_t i = 0;
	for (; i + 4 <= n; i += 4) {
		for (uint32_t j = 0; j < 4; j++) {
			const double a = std::fabs(v[i + j]);
			top[j] = a > top[j] ? a : top[j];
		}
	}
	for (; i < n; i++) {
		const double a = std::fabs(v[i]);
		top[0] = a > top[0] ? a : top[0];
	}
	const double largest = std::max(std::max(top[0], top[1]), std::max(top[2], top[3]));
	if (!(largest > 0 && largest < 0x1p1020)) {
		return false;
	}
	std::frexp(largest, &t); // largest < 2^t
	return t - 51 >= -1074;
}

//! One level: every value of `in` rounded to a multiple of 2^k, those multiples' sum in units of
//! 2^k returned, the rounding errors written to `rest`. Adding M = 1.5 * 2^(k + 52) rounds; where
//! the sum stays in M's binade (|value| < 2^(k + 51)) a double's bits count units of 2^k, so the
//! bits of the sum minus M's are the multiple as an exact integer (below 2^51 in magnitude, 1024
//! of them below 2^61), and the rounding error is exact too. `outside` is nonzero where a value
//! left the binade; `left`, where any rounding error is not ±0. Integer operations only on the
//! bits: the loop vectorizes.
int64_t Level(const double *in, double *rest, uint32_t n, int k, uint64_t &outside, uint64_t &left) {
	const double magic = std::ldexp(1.5, k + 52);
	uint64_t magic_bits;
	std::memcpy(&magic_bits, &magic, sizeof(magic_bits));
	int64_t total = 0;
	uint64_t out = 0, nonzero = 0;
	for (uint32_t r = 0; r < n; r++) {
		const double rounded = in[r] + magic;
		const double error = in[r] - (rounded - magic);
		uint64_t bits, error_bits;
		std::memcpy(&bits, &rounded, sizeof(bits));
		std::memcpy(&error_bits, &error, sizeof(error_bits));
		total += static_cast<int64_t>(bits - magic_bits);
		out |= (bits ^ magic_bits) >> 52;
		nonzero |= error_bits << 1;
		rest[r] = error;
	}
	outside = out;
	left = nonzero;
	return total;
}

} // namespace

bool CompactFloatSum::AddBatchInLevels(const double *v, uint32_t n) {
	// Level j rounds to multiples of 2^(t - 51 - 50 j): each level's errors lie below 2^(k_j - 1),
	// inside the next level's binade. 2^t bounds the batch: the last batch's bound (kept in
	// `batch_top`) where it still holds, else this batch's own.
	int t = batch_top;
	const bool carried = t != kNoTop;
	if (!carried && !BatchTop(v, n, t)) {
		return false;
	}
	double rest[1024];
	int64_t totals[kLevels];
	uint64_t outside, left;
	totals[0] = Level(v, rest, n, t - 51, outside, left);
	if (outside && carried && BatchTop(v, n, t) && t != batch_top) {
		totals[0] = Level(v, rest, n, t - 51, outside, left); // the carried bound no longer held
	}
	if (outside) {
		batch_top = kNoTop;
		return false;
	}
	batch_top = static_cast<int16_t>(t);
	uint32_t levels = 1;
	for (int k = t - 101; left && levels < kLevels && k >= -1074; levels++, k -= 50) {
		totals[levels] = Level(rest, rest, n, k, outside, left);
	}
	if (left) {
		batch_top = kNoTop; // the next batch measures its own bound
		return false;       // a spread too wide for the levels, or a NaN: the caller's exact loop
	}
	for (uint32_t j = 0; j < levels; j++) {
		if (totals[j]) {
			const bool negative = totals[j] < 0;
			uint64_t magnitude = static_cast<uint64_t>(Magnitude(totals[j]));
			// Without its trailing zero bits: a total at a fine level usually has many, and would
			// pull the state's grid far below the values' own last bits.
			const uint32_t zeros = static_cast<uint32_t>(__builtin_ctzll(magnitude));
			magnitude >>= zeros;
			AddWide(magnitude, negative, static_cast<uint32_t>(t - 51 - 50 * static_cast<int>(j) + 1074) + zeros);
		}
	}
	return true;
}

void CompactFloatSum::AddBatch(const double *v, uint64_t n) {
	values += n;
	for (uint64_t start = 0; start < n; start += 1024) {
		const uint64_t end = std::min<uint64_t>(n, start + 1024);
		if (AddBatchInLevels(v + start, static_cast<uint32_t>(end - start))) {
			continue;
		}
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
					AddWide(d.mantissa, d.negative, d.position);
				}
				continue;
			}
			const uint64_t mantissa = (bits & ((uint64_t(1) << 52) - 1)) | (static_cast<uint64_t>(biased != 0) << 52);
			const int64_t sign = -static_cast<int64_t>(bits >> 63);
			const int64_t m = (static_cast<int64_t>(mantissa) ^ sign) - sign;
			const uint32_t shift = 62 - (top - e);
			const uint64_t lo_bits = static_cast<uint64_t>(m) << shift;
			const int64_t hi_bits = (m >> 1) >> (63 - shift); // m >> (64 - shift), also for shift 0
			total_lo += lo_bits;
			total_hi += static_cast<uint64_t>(hi_bits) + (total_lo < lo_bits);
		}
		const i128 total = static_cast<i128>((static_cast<u128>(total_hi) << 64) | total_lo);
		if (total) {
			AddWide(Magnitude(total), total < 0, top - 1 - 62);
		}
	}
}

void CompactFloatSum::Combine(const CompactFloatSum &o) {
	values += o.values;
	special |= o.special;
	if (o.spill) {
		Spill().Add(*o.spill);
	}
	const i128 x = o.Integer();
	if (x) {
		AddWide(Magnitude(x), x < 0, o.scale);
	}
}

ExactSum CompactFloatSum::Finite() const {
	FloatAccumulator total;
	AddTo(total);
	return total.Sum();
}

void CompactFloatSum::AddTo(FloatAccumulator &total) const {
	if (spill) {
		total.Add(*spill);
	}
	const i128 x = Integer();
	if (x) {
		AddExactly(total, Magnitude(x), x < 0, scale);
	}
}

bool CompactFloatSum::RoundFast(uint64_t divisor, double &out) const {
	if (spill || divisor == 0) {
		return false;
	}
	const i128 x = Integer();
	if (!x) {
		out = 0;
		return true;
	}
	const bool negative = x < 0;
	u128 m = Magnitude(x);
	int64_t exponent = static_cast<int64_t>(scale) - 1074; // of m's bit 0
	bool sticky = false;
	if (divisor > 1) {
		// The dividend moved up to 128 bits, so the quotient keeps 64 bits or more.
		const uint32_t up = 128 - BitLength(m);
		m <<= up;
		exponent -= up;
		const u128 q = m / divisor;
		sticky = m - q * divisor != 0;
		m = q;
	}
	// The top 64 bits, every bit below folded into the lowest (it lies below the guard bit): the
	// conversion to double then rounds them as the whole would round.
	const uint32_t bits = BitLength(m);
	uint64_t t = static_cast<uint64_t>(m);
	if (bits > 64) {
		const uint32_t drop = bits - 64;
		t = static_cast<uint64_t>(m >> drop);
		sticky = sticky || (m & ((u128(1) << drop) - 1)) != 0;
		exponent += drop;
	}
	if (sticky) {
		if (bits < 64) {
			return false; // cannot happen (a quotient keeps 64 bits); the slow path would say
		}
		t |= 1;
	}
	const double r = std::ldexp(static_cast<double>(t), static_cast<int>(exponent));
	if (r == 0 || std::fabs(r) < DBL_MIN) {
		return false; // among the subnormals the mantissa is shorter: rounded twice here
	}
	out = negative ? -r : r;
	return true;
}

} // namespace compute
} // namespace vtx
