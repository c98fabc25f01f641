#include "exact_sum.hpp"

#include <algorithm>
#include <cmath>

namespace vtx {

namespace {

constexpr int64_t kUnitExponent = -1074; //! the weight of bit 0 of word 0: 2^-1074

//! Bits [from, from + count) of a little-endian run of words, count <= 64.
uint64_t BitsAt(const std::vector<uint32_t> &w, uint64_t from, uint32_t count) {
	uint64_t out = 0;
	for (uint32_t i = 0; i < count; i++) {
		const uint64_t bit = from + i;
		const uint64_t word = bit >> 5;
		if (word < w.size() && ((w[word] >> (bit & 31)) & 1)) {
			out |= uint64_t(1) << i;
		}
	}
	return out;
}

//! Whether any of bits [0, end) is set.
bool AnyBelow(const std::vector<uint32_t> &w, uint64_t end) {
	const uint64_t full = std::min<uint64_t>(end >> 5, w.size());
	for (uint64_t i = 0; i < full; i++) {
		if (w[i]) {
			return true;
		}
	}
	const uint32_t rest = static_cast<uint32_t>(end & 31);
	return rest && full < w.size() && (w[full] & ((uint32_t(1) << rest) - 1));
}

//! The nearest double (ties to even) to (w + sticky) * 2^bit0, where w is a magnitude with no
//! zero word at its top and `sticky` stands for a nonzero remainder below bit 0 (less than one
//! unit there). The grid of doubles is 2^-1074 at the bottom: callers with bits below it pass
//! bit0 < -1074.
double RoundToDouble(const std::vector<uint32_t> &w, int64_t bit0, bool sticky) {
	if (w.empty()) {
		return 0; // a remainder alone is below half the smallest subnormal (callers keep 64 extra bits)
	}
	const uint64_t top = 32 * (w.size() - 1) + (31 - static_cast<uint64_t>(__builtin_clz(w.back())));
	const int64_t top_exponent = bit0 + static_cast<int64_t>(top);
	const int64_t lowest_kept = std::max<int64_t>(top_exponent - 52, kUnitExponent);
	if (lowest_kept <= bit0) {
		// At most 53 significant bits, all on the grid: exact.
		return std::ldexp(static_cast<double>(BitsAt(w, 0, static_cast<uint32_t>(top + 1))), static_cast<int>(bit0));
	}
	const uint64_t k = static_cast<uint64_t>(lowest_kept - bit0);
	// Below half the smallest subnormal the value keeps no bit on the grid (a mean of subnormals
	// over many rows): the mantissa is 0 and only the guard and sticky bits decide.
	const int64_t kept = top_exponent - lowest_kept + 1;
	uint64_t mantissa = kept > 0 ? BitsAt(w, k, static_cast<uint32_t>(kept)) : 0;
	const bool guard = BitsAt(w, k - 1, 1) != 0;
	const bool rest = sticky || AnyBelow(w, k - 1);
	if (guard && (rest || (mantissa & 1))) {
		mantissa++; // 2^53 at most: still exact as a double, and ldexp carries it into the exponent
	}
	// Beyond the largest double, ldexp gives infinity, which is the correct rounding.
	return std::ldexp(static_cast<double>(mantissa), static_cast<int>(lowest_kept));
}

} // namespace

double ExactSum::Round() const {
	const double magnitude = RoundToDouble(words, 32 * static_cast<int64_t>(low_word) + kUnitExponent, false);
	return negative ? -magnitude : magnitude;
}

double ExactSum::RoundDivided(uint64_t divisor) const {
	if (words.empty()) {
		return 0;
	}
	// The quotient keeps 64 bits below 2^-1074, so that its rounding sees the guard bit and
	// every bit below the grid; the remainder is the sticky part.
	std::vector<uint32_t> dividend(2, 0);
	dividend.insert(dividend.end(), words.begin(), words.end());
	std::vector<uint32_t> quotient(dividend.size(), 0);
	unsigned __int128 remainder = 0;
	for (size_t i = dividend.size(); i-- > 0;) {
		const unsigned __int128 current = (remainder << 32) | dividend[i];
		quotient[i] = static_cast<uint32_t>(current / divisor);
		remainder = current % divisor;
	}
	while (!quotient.empty() && quotient.back() == 0) {
		quotient.pop_back();
	}
	const double magnitude =
	    RoundToDouble(quotient, 32 * static_cast<int64_t>(low_word) + kUnitExponent - 64, remainder != 0);
	return negative ? -magnitude : magnitude;
}

void ExactSum::Serialize(ByteWriter &w) const {
	w.Var(words.size());
	if (words.empty()) {
		return;
	}
	w.U8(negative ? 1 : 0);
	w.Var(low_word);
	for (auto word : words) {
		w.U32(word);
	}
}

ExactSum ExactSum::Deserialize(ByteReader &r) {
	ExactSum s;
	const uint64_t n = r.Count(4);
	if (n == 0) {
		return s;
	}
	const uint8_t sign = r.U8();
	const uint64_t low = r.Var();
	if (sign > 1 || n > FloatAccumulator::kLimbs || low > FloatAccumulator::kLimbs - n) {
		throw FormatError("an exact float sum is malformed");
	}
	s.negative = sign == 1;
	s.low_word = static_cast<uint32_t>(low);
	s.words.resize(n);
	for (auto &word : s.words) {
		word = r.U32();
	}
	if (s.words.front() == 0 || s.words.back() == 0) {
		throw FormatError("an exact float sum is not in its shortest form");
	}
	return s;
}

void FloatAccumulator::Allocate() {
	limbs.assign(kLimbs, 0);
}

void FloatAccumulator::Carry() {
	for (uint32_t i = 0; i + 1 < kLimbs; i++) {
		const int64_t carry = limbs[i] >> 32; // floor division: the limb keeps [0, 2^32)
		limbs[i] -= carry * (int64_t(1) << 32);
		limbs[i + 1] += carry;
	}
	pending = 0;
}

void FloatAccumulator::Add(const ExactSum &s) {
	if (s.IsZero()) {
		return;
	}
	if (limbs.empty()) {
		Allocate();
	}
	// Deserialize keeps every word inside the limbs; a sum from Sum() may have one word above the
	// top limb, folded into it.
	const int64_t sign = s.negative ? -1 : 1;
	for (size_t k = 0; k < s.words.size(); k++) {
		const size_t at = s.low_word + k;
		if (at < kLimbs) {
			limbs[at] += sign * static_cast<int64_t>(s.words[k]);
		} else {
			limbs[kLimbs - 1] += sign * static_cast<int64_t>(static_cast<uint64_t>(s.words[k]) << (32 * (at - kLimbs + 1)));
		}
	}
	if (++pending >= kCarryEvery) {
		Carry();
	}
}

void FloatAccumulator::AddLimbs(const int64_t *add, uint32_t count, uint32_t offset, uint64_t additions) {
	if (limbs.empty()) {
		Allocate();
	}
	// Each of `additions` values put below 2^32 into a limb, as Add(double) does once: carried
	// only when the pending additions would reach kCarryEvery (a carry walks all 67 limbs, and a
	// caller spilling one value at a time would pay it per value).
	if (pending + additions >= kCarryEvery) {
		Carry();
	}
	for (uint32_t i = 0; i < count; i++) {
		limbs[offset + i] += add[i];
	}
	pending += additions;
}

void FloatAccumulator::Add(const FloatAccumulator &o) {
	if (o.limbs.empty()) {
		return;
	}
	if (limbs.empty()) {
		Allocate();
	}
	// Both carried first: every limb below the top is then in [0, 2^32), and their sums leave
	// the headroom of the next 2^30 additions.
	FloatAccumulator other = o;
	other.Carry();
	Carry();
	for (uint32_t i = 0; i < kLimbs; i++) {
		limbs[i] += other.limbs[i];
	}
	pending = 2; // each limb as after two additions
}

ExactSum FloatAccumulator::Sum() const {
	ExactSum s;
	if (limbs.empty()) {
		return s;
	}
	FloatAccumulator copy = *this;
	copy.Carry();
	if (copy.limbs.back() < 0) {
		s.negative = true;
		for (auto &limb : copy.limbs) {
			limb = -limb;
		}
		copy.Carry();
	}
	std::vector<uint32_t> all;
	all.reserve(kLimbs + 1);
	for (uint32_t i = 0; i + 1 < kLimbs; i++) {
		all.push_back(static_cast<uint32_t>(copy.limbs[i]));
	}
	const uint64_t top = static_cast<uint64_t>(copy.limbs.back());
	all.push_back(static_cast<uint32_t>(top));
	all.push_back(static_cast<uint32_t>(top >> 32));
	size_t low = 0;
	while (low < all.size() && all[low] == 0) {
		low++;
	}
	if (low == all.size()) {
		s.negative = false;
		return s;
	}
	size_t high = all.size();
	while (all[high - 1] == 0) {
		high--;
	}
	s.low_word = static_cast<uint32_t>(low);
	s.words.assign(all.begin() + low, all.begin() + high);
	return s;
}

} // namespace vtx
