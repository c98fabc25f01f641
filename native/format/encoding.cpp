#include "encoding.hpp"

#include "bitpack.hpp"
#include "domain.hpp"
#include "dictionary_builder.hpp"
#include "scratch.hpp"
#include "utf8.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace vtx {

const char *EncodingName(Encoding e) {
	switch (e) {
	case Encoding::PLAIN: return "plain";
	case Encoding::CONSTANT: return "constant";
	case Encoding::FOR_BITPACK: return "for+bitpack";
	case Encoding::RLE: return "rle";
	case Encoding::DICTIONARY: return "dictionary";
	case Encoding::ALP: return "alp";
	}
	return "unknown";
}

namespace {

enum : uint8_t { ALL_VALID = 0, BITMAP = 1, ALL_NULL = 2 };

// Dictionaries larger than this are not worth their hash-table cost at write time.
constexpr uint64_t kMaxDictionary = 1 << 16;

// Per-thread scratch space, reused from chunk to chunk: fresh multi-megabyte buffers
// would cost a page fault per page on every chunk. Released when no query needs it any more
// (scratch.hpp); used only inside EncodeChunk's lease.
template <class T>
std::vector<T> &Scratch(int slot) {
	thread_local ScratchSlot<std::vector<T>> buffers[4];
	return buffers[slot].value;
}

void WriteValidity(const ColumnInput &in, ByteWriter &out, uint64_t &valid_count) {
	valid_count = 0;
	if (!in.valid) {
		valid_count = in.count;
		out.U8(ALL_VALID);
		return;
	}
	std::vector<uint64_t> bits((in.count + 63) / 64, 0);
	for (uint64_t i = 0; i < in.count; i++) {
		if (in.valid[i]) {
			bits[i >> 6] |= uint64_t(1) << (i & 63);
			valid_count++;
		}
	}
	if (valid_count == in.count) {
		out.U8(ALL_VALID);
	} else if (valid_count == 0) {
		out.U8(ALL_NULL);
	} else {
		out.U8(BITMAP);
		out.Bytes(bits.data(), bits.size() * 8);
	}
}

void WritePacked(ByteWriter &out, const std::vector<uint64_t> &values, uint8_t bw) {
	auto &words = Scratch<uint64_t>(3);
	Pack(values.data(), values.size(), bw, words);
	out.U8(bw);
	out.Bytes(words.data(), words.size() * 8);
}

//! The packed words of rows [b, e) only (b a multiple of 64, so that they start a word: 64
//! values of bw bits are exactly bw words), for a reader that needs no more.
std::vector<uint64_t, DefaultInit<uint64_t>> ReadPackedRows(ByteReader &r, uint64_t n, uint8_t max_bw, uint8_t &bw,
                                                           uint64_t b, uint64_t e) {
	bw = r.U8();
	if (bw > max_bw) {
		throw FormatError("bit width " + std::to_string(bw) + " is out of range");
	}
	auto src = r.Take(PackedWords(n, bw) * 8);
	const uint64_t first = b / 64 * bw, last = PackedWords(e, bw);
	std::vector<uint64_t, DefaultInit<uint64_t>> words(last > first ? last - first : 0);
	if (!words.empty()) {
		std::memcpy(words.data(), src + first * 8, words.size() * 8);
	}
	return words;
}

std::vector<uint64_t, DefaultInit<uint64_t>> ReadPacked(ByteReader &r, uint64_t n, uint8_t max_bw, uint8_t &bw) {
	return ReadPackedRows(r, n, max_bw, bw, 0, n);
}

template <class U>
U LoadValue(const uint8_t *p) {
	U v;
	std::memcpy(&v, p, sizeof(U));
	return v;
}

// ---- ALP: floats that are decimals in disguise ----------------------------------------
//
// value = T(d) / T(10^e), d a signed integer of the float's width, stored frame-of-reference
// bit-packed; values that do not survive the round trip bit for bit (NaN, infinities, -0.0,
// values with more digits) are stored as exceptions, patched in after decoding.

template <class T>
struct AlpTraits;
template <>
struct AlpTraits<double> {
	using S = int64_t;
	using U = uint64_t;
	typedef int64_t VS __attribute__((vector_size(32)));
	typedef double VT __attribute__((vector_size(32)));
	static constexpr int kMaxE = 18;
	static constexpr double kMaxInt = 4503599627370496.0; // 2^52: exact in a double, and rounds by adding 1.5 * 2^52
};
template <>
struct AlpTraits<float> {
	using S = int32_t;
	using U = uint32_t;
	typedef int32_t VS __attribute__((vector_size(32)));
	typedef float VT __attribute__((vector_size(32)));
	static constexpr int kMaxE = 10;
	static constexpr double kMaxInt = 16777216.0; // 2^24: exact in a float
};

inline double Pow10(int e) {
	static const double p[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	                           1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};
	return p[e];
}

//! The integer that decodes back to v bit for bit at exponent e, if there is one.
template <class T>
inline bool AlpEncodeOne(T v, int e, int64_t &d) {
	using TR = AlpTraits<T>;
	double x = static_cast<double>(v) * Pow10(e);
	if (!(x > -TR::kMaxInt && x < TR::kMaxInt)) { // also NaN
		return false;
	}
	const double magic = 6755399441055744.0; // 1.5 * 2^52: rounds to nearest integer
	double r = (x + magic) - magic;
	d = static_cast<int64_t>(r);
	T back = static_cast<T>(static_cast<typename TR::S>(d)) / static_cast<T>(Pow10(e));
	typename TR::U a, b;
	std::memcpy(&a, &v, sizeof(T));
	std::memcpy(&b, &back, sizeof(T));
	return a == b;
}

template <class T>
struct AlpPlan {
	int e = 0;
	uint64_t size = ~uint64_t(0);
};

//! Picks the exponent on a sample: the one whose packed integers plus exceptions are smallest.
template <class T, class U>
AlpPlan<T> PlanAlp(const std::vector<U> &vals) {
	using TR = AlpTraits<T>;
	const uint64_t n = vals.size();
	const uint64_t step = std::max<uint64_t>(1, n / 256);
	AlpPlan<T> best;
	for (int e = 0; e <= TR::kMaxE; e++) {
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		uint64_t exceptions = 0, sampled = 0;
		for (uint64_t i = 0; i < n; i += step, sampled++) {
			T v;
			std::memcpy(&v, &vals[i], sizeof(T));
			int64_t d;
			if (AlpEncodeOne(v, e, d)) {
				lo = std::min(lo, d);
				hi = std::max(hi, d);
			} else {
				exceptions++;
			}
		}
		uint64_t bw = lo <= hi ? BitWidth(static_cast<uint64_t>(hi - lo)) : 0;
		uint64_t size = (sampled * bw + 7) / 8 + exceptions * (4 + sizeof(T));
		if (size < best.size) {
			best.size = size;
			best.e = e;
		}
	}
	return best;
}

//! Encodes with exponent e; returns false (writing nothing) when the result would not be smaller than `limit`.
template <class T, class U>
bool EncodeAlp(const std::vector<U> &vals, int e, uint64_t limit, ByteWriter &out) {
	using S = typename AlpTraits<T>::S;
	const uint64_t n = vals.size();
	auto &ints = Scratch<uint64_t>(2);
	ints.resize(n);
	std::vector<uint32_t> positions;
	std::vector<U> exceptions;
	int64_t lo = INT64_MAX, hi = INT64_MIN, last = 0;
	bool have = false;
	for (uint64_t i = 0; i < n; i++) {
		T v;
		std::memcpy(&v, &vals[i], sizeof(T));
		int64_t d;
		if (AlpEncodeOne(v, e, d)) {
			lo = std::min(lo, d);
			hi = std::max(hi, d);
			if (!have) {
				for (uint64_t j = 0; j < i; j++) {
					ints[j] = static_cast<uint64_t>(d);
				}
				have = true;
			}
			last = d;
		} else {
			positions.push_back(static_cast<uint32_t>(i));
			exceptions.push_back(vals[i]);
			d = last; // costs no width
		}
		ints[i] = static_cast<uint64_t>(d);
	}
	if (!have) {
		return false;
	}
	const uint8_t bw = BitWidth(static_cast<uint64_t>(hi - lo));
	const uint64_t size = 1 + 1 + 8 + 1 + PackedWords(n, bw) * 8 + 10 + positions.size() * (4 + sizeof(T));
	if (size >= limit) {
		return false;
	}
	for (auto &x : ints) {
		// deltas in the W-byte signed domain: d = S(ref + delta)
		x = static_cast<uint64_t>(static_cast<int64_t>(x) - lo);
	}
	out.U8(static_cast<uint8_t>(Encoding::ALP));
	out.U8(static_cast<uint8_t>(e));
	out.U64(static_cast<uint64_t>(static_cast<int64_t>(static_cast<S>(lo))));
	WritePacked(out, ints, bw);
	out.Var(positions.size());
	out.Bytes(positions.data(), positions.size() * 4);
	out.Bytes(exceptions.data(), exceptions.size() * sizeof(U));
	return true;
}

template <class T, class U>
//! Decodes rows [first, last) (first a multiple of 64); exceptions are patched wherever they are.
void DecodeAlp(uint64_t n, ByteReader &r, U *dst, uint64_t first, uint64_t last) {
	using TR = AlpTraits<T>;
	using S = typename TR::S;
	auto e = r.U8();
	if (e > TR::kMaxE) {
		throw FormatError("ALP exponent " + std::to_string(e) + " is out of range");
	}
	const U ref = static_cast<U>(r.U64());
	uint8_t bw;
	auto words = ReadPackedRows(r, n, sizeof(U) * 8, bw, first, last);
	// Two passes: integers unpacked in place, then converted (a loop the compiler vectorises).
	UnpackTo<sizeof(U) * 8>(words.data(), last - first, bw, dst + first,
	                        [ref](uint64_t v) { return static_cast<U>(ref + static_cast<U>(v)); });
	const T p10 = static_cast<T>(Pow10(e));
	// In place, 32 bytes at a time with GCC vector types (SSE2 converts and divides four
	// floats or two doubles per instruction; the compiler's own cost model leaves it scalar).
	constexpr int kLanes = 32 / sizeof(T);
	using VS = typename AlpTraits<T>::VS;
	using VT = typename AlpTraits<T>::VT;
	const VT vp10 = VT {} + p10;
	uint64_t i = first;
	for (; i + kLanes <= last; i += kLanes) {
		VS s;
		std::memcpy(&s, &dst[i], sizeof(VS));
		VT v = __builtin_convertvector(s, VT) / vp10;
		std::memcpy(&dst[i], &v, sizeof(VT));
	}
	for (; i < last; i++) {
		S s;
		std::memcpy(&s, &dst[i], sizeof(S));
		T v = static_cast<T>(s) / p10;
		std::memcpy(&dst[i], &v, sizeof(T));
	}
	auto k = r.Count(4 + sizeof(T));
	if (k > n) {
		throw FormatError("ALP has more exceptions than rows");
	}
	auto pos = r.Take(k * 4);
	auto values = r.Take(k * sizeof(T));
	uint64_t prev = 0;
	for (uint64_t j = 0; j < k; j++) {
		auto p = LoadValue<uint32_t>(pos + j * 4);
		if (p >= n || (j > 0 && p <= prev)) {
			throw FormatError("ALP exception positions are not increasing within the zone");
		}
		prev = p;
		std::memcpy(&dst[p], values + j * sizeof(T), sizeof(T));
	}
}

// ---- fixed-width values -------------------------------------------------------------

template <class U>
Encoding EncodeFixed(const ColumnInput &in, ByteWriter &out) {
	const uint64_t n = in.count;
	const auto kind = in.type.Kind();
	// Null rows repeat the previous valid value so they cost nothing in any encoding.
	auto &vals = Scratch<U>(0);
	vals.resize(n);
	U last = 0;
	bool have = false;
	for (uint64_t i = 0; i < n; i++) {
		if (in.IsValid(i)) {
			last = LoadValue<U>(in.fixed + i * sizeof(U));
			if (!have) {
				for (uint64_t j = 0; j < i; j++) {
					vals[j] = last;
				}
				have = true;
			}
		}
		vals[i] = last;
	}
	bool constant = true;
	uint64_t runs = n ? 1 : 0;
	for (uint64_t i = 1; i < n; i++) {
		if (vals[i] != vals[i - 1]) {
			constant = false;
			runs++;
		}
	}
	if (constant) {
		out.U8(static_cast<uint8_t>(Encoding::CONSTANT));
		U v = n ? vals[0] : U(0);
		out.Put(v);
		return Encoding::CONSTANT;
	}
	const uint64_t plain_size = n * sizeof(U);
	// Plain reaches DuckDB without a copy; anything else costs decoding, so it must save
	// at least a tenth of the plain size to be chosen (bit-packing 62 of 64 bits does not pay).
	uint64_t best_size = plain_size - plain_size / 10;
	Encoding best = Encoding::PLAIN;

	const bool can_for = sizeof(U) <= 8 && (kind == PhysicalKind::SIGNED || kind == PhysicalKind::UNSIGNED);
	const uint64_t sign = kind == PhysicalKind::SIGNED ? uint64_t(1) << ((sizeof(U) * 8 - 1) & 63) : 0;
	uint64_t omin = ~uint64_t(0), omax = 0;
	uint8_t for_bw = 64;
	if (can_for) {
		for (auto v : vals) {
			uint64_t o = static_cast<uint64_t>(v) ^ sign;
			omin = o < omin ? o : omin;
			omax = o > omax ? o : omax;
		}
		for_bw = BitWidth(omax - omin);
		uint64_t size = 9 + PackedWords(n, for_bw) * 8;
		if (size < best_size) {
			best_size = size;
			best = Encoding::FOR_BITPACK;
		}
	}
	uint64_t rle_size = 10 + runs * (sizeof(U) + 4);
	if (rle_size < best_size) {
		best_size = rle_size;
		best = Encoding::RLE;
	}
	// ALP before the dictionary: where it halves the plain size, take it without paying for a
	// dictionary (whose hash table costs more to build than ALP to encode); otherwise it competes.
	ByteWriter alp;
	if constexpr (sizeof(U) == 4 || sizeof(U) == 8) {
		using T = std::conditional_t<sizeof(U) == 8, double, float>;
		if (kind == PhysicalKind::FLOAT && n >= 16) {
			auto plan = PlanAlp<T>(vals);
			const uint64_t step = std::max<uint64_t>(1, n / 256);
			// The sample's estimate decides whether the full encoding is worth trying.
			if (plan.size * step < best_size && EncodeAlp<T>(vals, plan.e, best_size, alp)) {
				if (alp.Size() <= plain_size / 2) {
					out.Bytes(alp.data.data(), alp.data.size());
					return Encoding::ALP;
				}
				best_size = alp.Size();
				best = Encoding::ALP;
			}
		}
	}
	// A dictionary only pays where values repeat; FOR already wins on narrow ranges.
	const uint64_t limit = std::min<uint64_t>(kMaxDictionary, n / 4);
	const bool try_dict = n >= 64 && for_bw > 8;
	DictionaryBuilder<U> dict(try_dict ? limit : 0);
	auto &codes = Scratch<uint64_t>(1);
	codes.clear();
	if (try_dict && BuildDictionary<U>(n, limit, [&](uint64_t i) { return vals[i]; }, dict, codes)) {
		auto bw = BitWidth(dict.values.size() - 1);
		uint64_t size = 10 + dict.values.size() * sizeof(U) + PackedWords(n, bw) * 8;
		if (size < best_size) {
			best_size = size;
			best = Encoding::DICTIONARY;
		}
	}
	if (best == Encoding::ALP) {
		out.Bytes(alp.data.data(), alp.data.size());
		return Encoding::ALP;
	}
	out.U8(static_cast<uint8_t>(best));
	switch (best) {
	case Encoding::PLAIN:
		out.Bytes(vals.data(), plain_size);
		break;
	case Encoding::FOR_BITPACK: {
		auto &deltas = Scratch<uint64_t>(2);
		deltas.resize(n);
		for (uint64_t i = 0; i < n; i++) {
			deltas[i] = (static_cast<uint64_t>(vals[i]) ^ sign) - omin;
		}
		out.U64(omin);
		WritePacked(out, deltas, for_bw);
		break;
	}
	case Encoding::RLE: {
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
		break;
	}
	case Encoding::DICTIONARY:
		out.Var(dict.values.size());
		out.Bytes(dict.values.data(), dict.values.size() * sizeof(U));
		WritePacked(out, codes, BitWidth(dict.values.size() - 1));
		break;
	default:
		break;
	}
	return best;
}

// Whether `count` values, a superset of those an encoding can produce, all lie in the type's
// domain. When not, nothing is decided: the decoded rows are then checked one by one (a
// dictionary entry no row uses, or a frame wider than its values, is no error).
template <class U>
bool Within(const ColumnType &type, const U *values, uint64_t count) {
	return ValuesInDomain(type, reinterpret_cast<const uint8_t *>(values), count);
}

// Decodes fixed-width values into `out`. Returns true when the encoding's own parameters already
// prove every decoded value to lie in the type's domain (a constant, the run values, the
// dictionary, or the two ends of a frame-of-reference range, checked once each), so that the
// caller need not check the values row by row.
template <class U>
bool DecodeFixed(const ColumnType &type, uint64_t n, ByteReader &r, Encoding enc, DecodedColumn &out,
                 const RowRange *range) {
	if (enc == Encoding::PLAIN) {
		auto src = n ? r.Take(n * sizeof(U)) : nullptr;
		// Aligned values are used where they lie, in the chunk's own buffer (no copy at all).
		if (n && reinterpret_cast<uintptr_t>(src) % std::min<size_t>(sizeof(U), 8) == 0) {
			out.values = src;
		} else if (n) {
			out.fixed.resize(n * sizeof(U));
			std::memcpy(out.fixed.data(), src, n * sizeof(U));
		}
		return false;
	}
	out.fixed.resize(n * sizeof(U));
	U *dst = reinterpret_cast<U *>(out.fixed.data());
	// Block-decoding encodings decode the 64-row blocks a range touches, and no others.
	uint64_t b = 0, e = n;
	if (range && (enc == Encoding::FOR_BITPACK || enc == Encoding::ALP)) {
		e = std::min(range->end, n);
		b = std::min(range->begin, e) / 64 * 64;
		out.decoded_begin = b;
		out.decoded_end = e;
	}
	switch (enc) {
	case Encoding::CONSTANT: {
		auto v = LoadValue<U>(r.Take(sizeof(U)));
		for (uint64_t i = 0; i < n; i++) {
			dst[i] = v;
		}
		return Within(type, &v, 1);
	}
	case Encoding::FOR_BITPACK: {
		auto kind = type.Kind();
		if (sizeof(U) > 8 || (kind != PhysicalKind::SIGNED && kind != PhysicalKind::UNSIGNED)) {
			throw FormatError("frame-of-reference encoding used for a " + type.ToString() + " column");
		}
		const uint64_t sign = kind == PhysicalKind::SIGNED ? uint64_t(1) << ((sizeof(U) * 8 - 1) & 63) : 0;
		auto ref = r.U64();
		uint8_t bw;
		auto words = ReadPackedRows(r, n, sizeof(U) * 8, bw, b, e);
		auto value = [ref, sign](uint64_t d) { return static_cast<U>((ref + d) ^ sign); };
		// Every value is ref + d. Where ref + (largest d) does not wrap in U, the values lie
		// between value(0) and value(largest d) in the type's order (the sign flip keeps it), and
		// every restricted domain but TIME WITH TIME ZONE's is one interval in that order: the two
		// ends decide it. The largest d costs one max per value while unpacking, where checking
		// the values afterwards takes a second pass.
		const bool interval = HasRestrictedDomain(type) && type.id != TypeId::TIME_TZ;
		uint64_t span = 0;
		if (sizeof(U) == 1 && bw == 1) {
			// Booleans (and 1-bit byte columns): eight rows per step.
			UnpackBitsToBytes(words.data(), e - b, static_cast<uint8_t>(value(0)), static_cast<uint8_t>(value(1)),
			                  reinterpret_cast<uint8_t *>(dst + b));
			span = 1;
		} else if (interval) {
			UnpackTo<sizeof(U) * 8>(words.data(), e - b, bw, dst + b, [&](uint64_t d) {
				span = d > span ? d : span;
				return value(d);
			});
		} else {
			UnpackTo<sizeof(U) * 8>(words.data(), e - b, bw, dst + b, value);
		}
		const uint64_t top = sizeof(U) >= 8 ? ~uint64_t(0) : (uint64_t(1) << (sizeof(U) * 8)) - 1;
		if (!interval || ref > top || span > top - ref) {
			return !HasRestrictedDomain(type);
		}
		const U ends[2] = {value(0), value(span)};
		return Within(type, ends, 2);
	}
	case Encoding::RLE: {
		auto runs = r.Count(sizeof(U) + 4);
		auto values = r.Take(runs * sizeof(U));
		auto ends = r.Take(runs * 4);
		uint64_t pos = 0;
		for (uint64_t k = 0; k < runs; k++) {
			auto end = LoadValue<uint32_t>(ends + k * 4);
			if (end <= pos || end > n) {
				throw FormatError("run-length ends are not increasing within the zone");
			}
			auto v = LoadValue<U>(values + k * sizeof(U));
			for (; pos < end; pos++) {
				dst[pos] = v;
			}
		}
		if (pos != n) {
			throw FormatError("run-length runs cover " + std::to_string(pos) + " of " + std::to_string(n) + " rows");
		}
		return ValuesInDomain(type, values, runs);
	}
	case Encoding::DICTIONARY: {
		auto d = r.Count(sizeof(U));
		if (d == 0 && n > 0) {
			throw FormatError("empty dictionary");
		}
		auto dict = r.Take(d * sizeof(U));
		uint8_t bw;
		auto words = ReadPacked(r, n, 32, bw);
		uint64_t bad = 0;
		UnpackTo<32>(words.data(), n, bw, dst, [&](uint64_t code) {
			bad |= code >= d;
			code = code < d ? code : 0;
			return LoadValue<U>(dict + code * sizeof(U));
		});
		if (bad) {
			throw FormatError("dictionary code out of range");
		}
		return ValuesInDomain(type, dict, d);
	}
	case Encoding::ALP:
		if constexpr (sizeof(U) == 4 || sizeof(U) == 8) {
			if (type.Kind() == PhysicalKind::FLOAT) {
				DecodeAlp<std::conditional_t<sizeof(U) == 8, double, float>>(n, r, dst, b, e);
				return false; // floats: no restricted domain
			}
		}
		throw FormatError("ALP encoding used for a " + type.ToString() + " column");
	default:
		throw FormatError("unknown encoding " + std::to_string(static_cast<int>(enc)));
	}
	return false;
}

// ---- strings -----------------------------------------------------------------------

void WriteStrings(ByteWriter &out, const std::vector<std::string_view> &values) {
	auto &lens = Scratch<uint64_t>(2);
	lens.resize(values.size());
	uint64_t total = 0, longest = 0;
	for (size_t i = 0; i < values.size(); i++) {
		lens[i] = values[i].size();
		total += lens[i];
		longest = std::max(longest, lens[i]);
	}
	WritePacked(out, lens, BitWidth(longest));
	out.Var(total);
	out.data.reserve(out.data.size() + total);
	for (auto &v : values) {
		out.Bytes(v.data(), v.size());
	}
}

// Reads a string block of n strings pointing into the chunk's own buffer; with `utf8`,
// refuses a block that is not valid UTF-8 string by string.
void ReadStrings(ByteReader &r, uint64_t n, bool utf8, StringRefs &out) {
	uint8_t bw;
	auto words = ReadPacked(r, n, 32, bw);
	auto total = r.Var();
	auto bytes = r.Take(total);
	out.resize(n);
	uint64_t pos = 0;
	bool bad = false;
	bool split = false;
	Unpack(words.data(), n, bw, [&](uint64_t i, uint64_t len) {
		if (len > total - pos) {
			bad = true;
			len = 0;
		}
		split |= utf8 && !StartsCharacter(bytes + pos, len);
		out[i] = StringRef {reinterpret_cast<const char *>(bytes + pos), static_cast<uint32_t>(len)};
		pos += len;
	});
	if (bad || pos != total) {
		throw FormatError("string lengths do not match the string bytes");
	}
	if (utf8 && (split || !ValidUtf8(bytes, total))) {
		throw FormatError("a VARCHAR value is not valid UTF-8");
	}
}

Encoding EncodeStrings(const ColumnInput &in, ByteWriter &out) {
	const uint64_t n = in.count;
	auto &vals = Scratch<std::string_view>(0);
	vals.resize(n);
	std::string_view last;
	for (uint64_t i = 0; i < n; i++) {
		if (in.IsValid(i)) {
			last = std::string_view(in.strings[i].ptr, in.strings[i].len);
		}
		vals[i] = last;
	}
	bool constant = true;
	for (uint64_t i = 1; i < n && constant; i++) {
		constant = vals[i] == vals[0];
	}
	if (constant) {
		out.U8(static_cast<uint8_t>(Encoding::CONSTANT));
		out.Var(n ? vals[0].size() : 0);
		if (n) {
			out.Bytes(vals[0].data(), vals[0].size());
		}
		return Encoding::CONSTANT;
	}
	const uint64_t limit = std::min<uint64_t>(kMaxDictionary, n / 2);
	DictionaryBuilder<std::string_view> dict(limit);
	auto &codes = Scratch<uint64_t>(1);
	if (!BuildDictionary<std::string_view>(n, limit, [&](uint64_t i) { return vals[i]; }, dict, codes)) {
		out.U8(static_cast<uint8_t>(Encoding::PLAIN));
		WriteStrings(out, vals);
		return Encoding::PLAIN;
	}
	out.U8(static_cast<uint8_t>(Encoding::DICTIONARY));
	out.Var(dict.values.size());
	WriteStrings(out, dict.values);
	WritePacked(out, codes, BitWidth(dict.values.size() - 1));
	return Encoding::DICTIONARY;
}

void DecodeStrings(uint64_t n, ByteReader &r, Encoding enc, bool utf8, DecodedColumn &out) {
	switch (enc) {
	case Encoding::PLAIN:
		ReadStrings(r, n, utf8, out.strings);
		break;
	case Encoding::CONSTANT: {
		auto len = r.Var();
		if (len > UINT32_MAX) {
			throw FormatError("string is too long");
		}
		auto p = r.Take(len);
		if (utf8 && !ValidUtf8(p, len)) {
			throw FormatError("a VARCHAR value is not valid UTF-8");
		}
		out.strings.assign(n, StringRef {reinterpret_cast<const char *>(p), static_cast<uint32_t>(len)});
		break;
	}
	case Encoding::DICTIONARY: {
		auto d = r.Count(1);
		if (d == 0 && n > 0) {
			throw FormatError("empty dictionary");
		}
		auto &dict = out.dictionary;
		ReadStrings(r, d, utf8, dict);
		uint8_t bw;
		auto words = ReadPacked(r, n, 32, bw);
		out.codes.resize(n);
		uint32_t bad = 0;
		const uint32_t limit = static_cast<uint32_t>(std::min<uint64_t>(d, UINT32_MAX));
		UnpackTo<32>(words.data(), n, bw, out.codes.data(), [&](uint64_t code) {
			bad |= code >= limit;
			return static_cast<uint32_t>(code < limit ? code : 0);
		});
		if (bad) {
			throw FormatError("dictionary code out of range");
		}
		break;
	}
	default:
		throw FormatError("encoding " + std::string(EncodingName(enc)) + " is not valid for strings");
	}
}

void ReadValidity(ByteReader &r, uint64_t n, DecodedColumn &out) {
	auto kind = r.U8();
	out.count = n;
	out.all_valid = kind == ALL_VALID;
	out.all_null = kind == ALL_NULL;
	out.validity.clear();
	if (kind == BITMAP) {
		auto words = (n + 63) / 64;
		out.validity.resize(words);
		if (words) {
			std::memcpy(out.validity.data(), r.Take(words * 8), words * 8);
		}
	} else if (kind == ALL_NULL) {
		out.validity.assign((n + 63) / 64, 0);
	} else if (kind != ALL_VALID) {
		throw FormatError("unknown validity kind " + std::to_string(kind));
	}
}

} // namespace

Encoding EncodeChunk(const ColumnInput &in, ByteWriter &out) {
	NoteHeapUse(in.count * std::max<size_t>(in.type.ByteWidth(), sizeof(StringRef)));
	ScratchLease lease;
	uint64_t valid_count;
	WriteValidity(in, out, valid_count);
	if (valid_count == 0 && in.count > 0) {
		return Encoding::CONSTANT;
	}
	if (in.type.IsString()) {
		return EncodeStrings(in, out);
	}
	switch (in.type.ByteWidth()) {
	case 1: return EncodeFixed<uint8_t>(in, out);
	case 2: return EncodeFixed<uint16_t>(in, out);
	case 4: return EncodeFixed<uint32_t>(in, out);
	case 8: return EncodeFixed<uint64_t>(in, out);
	case 16: return EncodeFixed<uint128>(in, out);
	}
	throw FormatError("cannot encode type " + in.type.ToString());
}

void DecodeChunk(const ColumnType &type, uint64_t rows, std::vector<uint8_t> &&body, DecodedColumn &out) {
	DecodeChunk(type, rows, ByteBuffer(body.begin(), body.end()), out);
}

void DecodeChunk(const ColumnType &type, uint64_t rows, ByteBuffer &&body, DecodedColumn &out, size_t start,
                 const RowRange *range) {
	// The body, and the values it decodes to (strings as references).
	NoteHeapUse(body.size() + rows * std::max<size_t>(type.ByteWidth(), sizeof(StringRef)));
	out = DecodedColumn();
	out.buffer = std::move(body);
	if (start > out.buffer.size()) {
		throw FormatError("segment is truncated");
	}
	ByteReader r(out.buffer.data() + start, out.buffer.size() - start, "segment");
	ReadValidity(r, rows, out);
	// Whether every value is known to lie in the type's domain without looking at each row:
	// from the encoding's parameters, or because an all-NULL chunk holds zeros (in every domain).
	bool domain_checked = false;
	if (out.all_null && rows > 0) {
		domain_checked = true;
		if (type.IsString()) {
			out.strings.assign(rows, StringRef {"", 0});
		} else {
			out.fixed.assign(rows * type.ByteWidth(), 0);
		}
	} else {
		auto enc = static_cast<Encoding>(r.U8());
		if (type.IsString()) {
			DecodeStrings(rows, r, enc, type.id == TypeId::VARCHAR, out);
		} else {
			switch (type.ByteWidth()) {
			case 1: domain_checked = DecodeFixed<uint8_t>(type, rows, r, enc, out, range); break;
			case 2: domain_checked = DecodeFixed<uint16_t>(type, rows, r, enc, out, range); break;
			case 4: domain_checked = DecodeFixed<uint32_t>(type, rows, r, enc, out, range); break;
			case 8: domain_checked = DecodeFixed<uint64_t>(type, rows, r, enc, out, range); break;
			case 16: domain_checked = DecodeFixed<uint128>(type, rows, r, enc, out, range); break;
			default: throw FormatError("cannot decode type " + type.ToString());
			}
		}
	}
	if (!r.AtEnd()) {
		throw FormatError("segment has " + std::to_string(r.Remaining()) + " unexpected trailing bytes");
	}
	// Every decoded row, NULL rows included (writers store a valid value there): DuckDB may look.
	// Only those: under a range the others hold whatever the buffer held. The decoded rows are
	// made explicit here ([0, rows) unless a range narrowed them), so there is one case to check.
	out.decoded_end = std::min<uint64_t>(out.decoded_end, rows);
	if (!type.IsString() && !domain_checked) {
		CheckDomain(type, out.Fixed() + out.decoded_begin * type.ByteWidth(), out.decoded_end - out.decoded_begin);
	}
}

Encoding PeekEncoding(const ColumnType &type, uint64_t rows, const ByteBuffer &body) {
	ByteReader r(body.data(), body.size(), "segment");
	DecodedColumn scratch;
	ReadValidity(r, rows, scratch);
	if (scratch.all_null && rows > 0) {
		return Encoding::CONSTANT;
	}
	(void)type;
	return static_cast<Encoding>(r.U8());
}

} // namespace vtx
