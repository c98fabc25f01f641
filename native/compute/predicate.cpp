#include "predicate.hpp"

#include "../format/encodings/bitpack.hpp"
#include "../format/encodings/encoding.hpp"
#include "selection.hpp"
#include "../format/vector_loops.hpp"


#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <type_traits>

namespace vtx {
namespace compute {

namespace {

//! The engine's order: for floats NaN above everything (NaN = NaN) and -0.0 = 0.0.
template <class T>
struct Less {
	static bool Lt(const T &a, const T &b) {
		return a < b;
	}
};
template <>
struct Less<float> {
	static bool Lt(float a, float b) {
		return std::isnan(b) ? !std::isnan(a) : a < b;
	}
};
template <>
struct Less<double> {
	static bool Lt(double a, double b) {
		return std::isnan(b) ? !std::isnan(a) : a < b;
	}
};
template <>
struct Less<StringRef> {
	static bool Lt(const StringRef &a, const StringRef &b) {
		auto n = std::min(a.len, b.len);
		int c = n ? std::memcmp(a.ptr, b.ptr, n) : 0;
		return c != 0 ? c < 0 : a.len < b.len;
	}
};

template <class T>
T Load(const std::string &raw) {
	T v;
	std::memset(&v, 0, sizeof(T));
	std::memcpy(&v, raw.data(), std::min(raw.size(), sizeof(T)));
	return v;
}
template <>
StringRef Load<StringRef>(const std::string &raw) {
	return StringRef {raw.data(), static_cast<uint32_t>(raw.size())};
}

template <class T>
bool Eq(const T &a, const T &b) {
	return !Less<T>::Lt(a, b) && !Less<T>::Lt(b, a);
}
//! Strings: equal lengths first, then one comparison of the bytes (the order's two comparisons
//! each ran memcmp: `url IN (three URLs)` over 1M long strings, 6 memcmp calls a row).
template <>
bool Eq<StringRef>(const StringRef &a, const StringRef &b) {
	return a.len == b.len && (a.len == 0 || std::memcmp(a.ptr, b.ptr, a.len) == 0);
}

template <class T>
bool Apply(CompareOp op, const T &a, const T &c) {
	switch (op) {
	case CompareOp::EQ: return Eq(a, c);
	case CompareOp::NE: return !Eq(a, c);
	case CompareOp::LT: return Less<T>::Lt(a, c);
	case CompareOp::LE: return !Less<T>::Lt(c, a);
	case CompareOp::GT: return Less<T>::Lt(c, a);
	case CompareOp::GE: return !Less<T>::Lt(a, c);
	}
	return false;
}

// ---- zone classification -------------------------------------------------------------

ZoneMatch AllUnlessNulls(const ZoneStats &s) {
	return s.nulls == 0 ? ZoneMatch::ALL : ZoneMatch::SOME;
}

//! Bounds [lo, hi] of the non-NULL values in the engine's order, if known.
template <class T>
bool Bounds(const ColumnType &type, const ZoneStats &s, T &lo, T &hi) {
	if (type.IsFloat()) {
		const T nan = std::numeric_limits<T>::quiet_NaN();
		if (!s.has_minmax) {
			if (s.nans != s.NonNull()) {
				return false;
			}
			lo = hi = nan; // nothing but NaN
			return true;
		}
		lo = Load<T>(s.min);
		hi = s.nans > 0 ? nan : Load<T>(s.max);
		return true;
	}
	if (!s.has_minmax || !s.minmax_exact) {
		return false;
	}
	lo = Load<T>(s.min);
	hi = Load<T>(s.max);
	return true;
}

template <class T>
ZoneMatch ClassifyCompare(CompareOp op, const T &c, const T &lo, const T &hi, const ZoneStats &s) {
	auto lt = Less<T>::Lt;
	switch (op) {
	case CompareOp::EQ:
		if (lt(c, lo) || lt(hi, c)) {
			return ZoneMatch::NONE;
		}
		return Eq(lo, c) && Eq(hi, c) ? AllUnlessNulls(s) : ZoneMatch::SOME;
	case CompareOp::NE:
		if (Eq(lo, c) && Eq(hi, c)) {
			return ZoneMatch::NONE;
		}
		return lt(c, lo) || lt(hi, c) ? AllUnlessNulls(s) : ZoneMatch::SOME;
	case CompareOp::LT:
		if (!lt(lo, c)) {
			return ZoneMatch::NONE;
		}
		return lt(hi, c) ? AllUnlessNulls(s) : ZoneMatch::SOME;
	case CompareOp::LE:
		if (lt(c, lo)) {
			return ZoneMatch::NONE;
		}
		return !lt(c, hi) ? AllUnlessNulls(s) : ZoneMatch::SOME;
	case CompareOp::GT:
		if (!lt(c, hi)) {
			return ZoneMatch::NONE;
		}
		return lt(c, lo) ? AllUnlessNulls(s) : ZoneMatch::SOME;
	case CompareOp::GE:
		if (lt(hi, c)) {
			return ZoneMatch::NONE;
		}
		return !lt(lo, c) ? AllUnlessNulls(s) : ZoneMatch::SOME;
	}
	return ZoneMatch::SOME;
}

template <class T>
ZoneMatch Classify(const Predicate &p, const ColumnType &type, const ZoneStats &s) {
	switch (p.kind) {
	case Predicate::Kind::ALWAYS_TRUE:
		return ZoneMatch::ALL;
	case Predicate::Kind::IS_NULL:
		return s.nulls == 0 ? ZoneMatch::NONE : s.nulls == s.rows ? ZoneMatch::ALL : ZoneMatch::SOME;
	case Predicate::Kind::IS_NOT_NULL:
		return s.nulls == s.rows ? ZoneMatch::NONE : s.nulls == 0 ? ZoneMatch::ALL : ZoneMatch::SOME;
	case Predicate::Kind::COMPARE:
	case Predicate::Kind::IN: {
		if (s.NonNull() == 0) {
			return ZoneMatch::NONE; // NULL never matches
		}
		T lo, hi;
		if (!Bounds<T>(type, s, lo, hi)) {
			return ZoneMatch::SOME;
		}
		if (p.kind == Predicate::Kind::COMPARE) {
			return ClassifyCompare<T>(p.op, Load<T>(p.value), lo, hi, s);
		}
		ZoneMatch r = ZoneMatch::NONE;
		for (auto &v : p.values) {
			auto m = ClassifyCompare<T>(CompareOp::EQ, Load<T>(v), lo, hi, s);
			if (m == ZoneMatch::ALL) {
				return m;
			}
			if (m == ZoneMatch::SOME) {
				r = m;
			}
		}
		return r;
	}
	case Predicate::Kind::AND: {
		ZoneMatch r = ZoneMatch::ALL;
		for (auto &c : p.children) {
			r = And(r, Classify<T>(c, type, s));
			if (r == ZoneMatch::NONE) {
				break;
			}
		}
		return r;
	}
	case Predicate::Kind::OR: {
		ZoneMatch r = ZoneMatch::NONE;
		for (auto &c : p.children) {
			auto m = Classify<T>(c, type, s);
			if (m == ZoneMatch::ALL) {
				return m;
			}
			if (m == ZoneMatch::SOME) {
				r = m;
			}
		}
		return r;
	}
	}
	return ZoneMatch::SOME;
}

// ---- selectivity ------------------------------------------------------------------

//! A number's place on a line, for interpolation between a zone's bounds (strings: unknown).
template <class T>
bool AsNumber(const T &v, double &out) {
	if constexpr (std::is_same<T, StringRef>::value) {
		return false;
	} else {
		out = static_cast<double>(v);
		return out == out;
	}
}

//! The share of a zone's non-NULL values a comparison keeps, values taken as spread evenly over
//! [lo, hi]; an equality keeps one value of the range (or of 100 where the range says nothing).
template <class T>
double CompareShare(CompareOp op, const T &c, const T &lo, const T &hi, bool integral) {
	double x, a, b;
	if (!AsNumber(c, x) || !AsNumber(lo, a) || !AsNumber(hi, b) || !(b > a)) {
		return op == CompareOp::EQ ? 0.01 : op == CompareOp::NE ? 0.99 : 0.5;
	}
	const double width = integral ? b - a + 1 : b - a;
	const double eq = integral ? 1 / width : 0.01;
	const double below = std::min(1.0, std::max(0.0, (x - a) / width));
	switch (op) {
	case CompareOp::EQ: return x < a || x > b ? 0 : eq;
	case CompareOp::NE: return x < a || x > b ? 1 : 1 - eq;
	case CompareOp::LT: return below;
	case CompareOp::LE: return std::min(1.0, below + eq);
	case CompareOp::GT: return std::max(0.0, 1 - below - eq);
	case CompareOp::GE: return 1 - below;
	}
	return 0.5;
}

template <class T>
double Share(const Predicate &p, const ColumnType &type, const ZoneStats &s) {
	const double rows = s.rows ? static_cast<double>(s.rows) : 1;
	const double valid = static_cast<double>(s.NonNull()) / rows;
	switch (p.kind) {
	case Predicate::Kind::ALWAYS_TRUE:
		return 1;
	case Predicate::Kind::IS_NULL:
		return 1 - valid;
	case Predicate::Kind::IS_NOT_NULL:
		return valid;
	case Predicate::Kind::COMPARE:
	case Predicate::Kind::IN: {
		T lo, hi;
		if (s.NonNull() == 0 || !Bounds<T>(type, s, lo, hi)) {
			return s.NonNull() == 0 ? 0 : 0.5 * valid;
		}
		const bool integral = type.Kind() == PhysicalKind::SIGNED || type.Kind() == PhysicalKind::UNSIGNED;
		if (p.kind == Predicate::Kind::COMPARE) {
			return valid * CompareShare<T>(p.op, Load<T>(p.value), lo, hi, integral);
		}
		double share = 0;
		for (auto &v : p.values) {
			share += CompareShare<T>(CompareOp::EQ, Load<T>(v), lo, hi, integral);
		}
		return valid * std::min(1.0, share);
	}
	case Predicate::Kind::AND: {
		double share = 1;
		for (auto &c : p.children) {
			share *= Share<T>(c, type, s);
		}
		return share;
	}
	case Predicate::Kind::OR: {
		double none = 1;
		for (auto &c : p.children) {
			none *= 1 - Share<T>(c, type, s);
		}
		return 1 - none;
	}
	}
	return 0.5;
}

// ---- row evaluation ------------------------------------------------------------------

template <class T>
const T *Values(const DecodedColumn &chunk);
template <class T>
const T *Values(const DecodedColumn &chunk) {
	return reinterpret_cast<const T *>(chunk.Fixed());
}

template <class T, CompareOp OP>
VTX_VECTOR_LOOP void CompareLoop(const T *data, uint64_t n, const T c, uint8_t *out) {
	for (uint64_t i = 0; i < n; i++) {
		T v;
		std::memcpy(&v, data + i, sizeof(T));
		out[i] = Apply<T>(OP, v, c);
	}
}

//! A conjunction of bounds (`x >= lo AND x <= hi`: BETWEEN, a join's min/max filter) in one pass.
template <class T>
VTX_VECTOR_LOOP void RangeLoop(const T *data, uint64_t n, const T lo, const T hi, uint8_t *out) {
	for (uint64_t i = 0; i < n; i++) {
		T v;
		std::memcpy(&v, data + i, sizeof(T));
		out[i] = (v >= lo) & (v <= hi);
	}
}

//! Where every child of an AND compares the column with a constant by an order or by equality,
//! the closed interval they leave: strict bounds become inclusive ones (integers only), and
//! `empty` says no value is left. False for any other AND.
template <class T>
bool IntegerRange(const Predicate &p, T &lo, T &hi, bool &empty) {
	lo = std::numeric_limits<T>::min();
	hi = std::numeric_limits<T>::max();
	empty = false;
	for (auto &c : p.children) {
		if (c.kind != Predicate::Kind::COMPARE) {
			return false;
		}
		const T v = Load<T>(c.value);
		switch (c.op) {
		case CompareOp::EQ: lo = std::max(lo, v); hi = std::min(hi, v); break;
		case CompareOp::GE: lo = std::max(lo, v); break;
		case CompareOp::LE: hi = std::min(hi, v); break;
		case CompareOp::GT:
			empty = empty || v == std::numeric_limits<T>::max();
			lo = empty ? lo : std::max(lo, T(v + 1));
			break;
		case CompareOp::LT:
			empty = empty || v == std::numeric_limits<T>::min();
			hi = empty ? hi : std::min(hi, T(v - 1));
			break;
		case CompareOp::NE: return false;
		}
	}
	empty = empty || lo > hi;
	return true;
}

template <class T>
void CompareRows(CompareOp op, const T *data, uint64_t n, const T c, uint8_t *out) {
	switch (op) {
	case CompareOp::EQ: return CompareLoop<T, CompareOp::EQ>(data, n, c, out);
	case CompareOp::NE: return CompareLoop<T, CompareOp::NE>(data, n, c, out);
	case CompareOp::LT: return CompareLoop<T, CompareOp::LT>(data, n, c, out);
	case CompareOp::LE: return CompareLoop<T, CompareOp::LE>(data, n, c, out);
	case CompareOp::GT: return CompareLoop<T, CompareOp::GT>(data, n, c, out);
	case CompareOp::GE: return CompareLoop<T, CompareOp::GE>(data, n, c, out);
	}
}

template <>
void CompareRows<StringRef>(CompareOp op, const StringRef *data, uint64_t n, const StringRef c, uint8_t *out) {
	for (uint64_t i = 0; i < n; i++) {
		out[i] = Apply<StringRef>(op, data[i], c);
	}
}

template <class T>
void Evaluate(const Predicate &p, const ColumnType &type, const DecodedColumn &chunk, uint8_t *out) {
	const uint64_t n = chunk.count;
	switch (p.kind) {
	case Predicate::Kind::ALWAYS_TRUE:
		std::memset(out, 1, n);
		return;
	case Predicate::Kind::IS_NULL:
	case Predicate::Kind::IS_NOT_NULL: {
		const bool want_valid = p.kind == Predicate::Kind::IS_NOT_NULL;
		if (chunk.all_null || chunk.all_valid) {
			std::memset(out, chunk.all_null ? !want_valid : want_valid, n);
			return;
		}
		// Each row's validity bit as a byte: the answer for IS NOT NULL, its negation for IS NULL.
		UnpackBitsToBytes(reinterpret_cast<const uint8_t *>(chunk.validity.data()), n, want_valid ? 0 : 1,
		                  want_valid ? 1 : 0, out);
		return;
	}
	case Predicate::Kind::COMPARE:
	case Predicate::Kind::IN: {
		if (chunk.all_null) {
			std::memset(out, 0, n);
			return;
		}
		StringRefs scratch;
		const T *data = type.IsString() ? reinterpret_cast<const T *>(chunk.Strings(scratch)) : Values<T>(chunk);
		if (p.kind == Predicate::Kind::COMPARE) {
			CompareRows<T>(p.op, data, n, Load<T>(p.value), out);
		} else {
			std::vector<T> set;
			for (auto &v : p.values) {
				set.push_back(Load<T>(v));
			}
			for (uint64_t i = 0; i < n; i++) {
				T v;
				std::memcpy(&v, data + i, sizeof(T));
				bool hit = false;
				for (auto &c : set) {
					hit |= Eq(v, c); // no branch: the loop over rows vectorizes
				}
				out[i] = hit;
			}
		}
		if (!chunk.all_valid) {
			AndValidity(out, chunk.validity.data(), n);
		}
		return;
	}
	case Predicate::Kind::AND:
	case Predicate::Kind::OR: {
		const bool is_and = p.kind == Predicate::Kind::AND;
		if (p.children.empty()) {
			std::memset(out, is_and ? 1 : 0, n);
			return;
		}
		if constexpr (std::is_integral<T>::value) {
			T lo, hi;
			bool empty;
			if (is_and && IntegerRange<T>(p, lo, hi, empty)) {
				if (empty || chunk.all_null) {
					std::memset(out, 0, n);
					return;
				}
				RangeLoop<T>(Values<T>(chunk), n, lo, hi, out);
				if (!chunk.all_valid) {
					AndValidity(out, chunk.validity.data(), n);
				}
				return;
			}
		}
		// The first child writes the answer itself; the others, into scratch that every byte of
		// is written before it is read (no zeroing of a zone-sized buffer per call).
		Evaluate<T>(p.children[0], type, chunk, out);
		std::unique_ptr<uint8_t[]> scratch(p.children.size() > 1 ? new uint8_t[n] : nullptr);
		uint8_t *tmp = scratch.get();
		for (size_t k = 1; k < p.children.size(); k++) {
			auto &c = p.children[k];
			Evaluate<T>(c, type, chunk, tmp);
			if (is_and) {
				for (uint64_t i = 0; i < n; i++) {
					out[i] &= tmp[i];
				}
			} else {
				for (uint64_t i = 0; i < n; i++) {
					out[i] |= tmp[i];
				}
			}
		}
		return;
	}
	}
}

template <template <class> class F, class... ARGS>
auto Dispatch(const ColumnType &type, ARGS &&...args) -> decltype(F<int8_t>::Run(args...)) {
	auto w = type.ByteWidth();
	switch (type.Kind()) {
	case PhysicalKind::SIGNED:
		switch (w) {
		case 1: return F<int8_t>::Run(args...);
		case 2: return F<int16_t>::Run(args...);
		case 4: return F<int32_t>::Run(args...);
		case 8: return F<int64_t>::Run(args...);
		default: return F<int128>::Run(args...);
		}
	case PhysicalKind::UNSIGNED:
		switch (w) {
		case 1: return F<uint8_t>::Run(args...);
		case 2: return F<uint16_t>::Run(args...);
		case 4: return F<uint32_t>::Run(args...);
		case 8: return F<uint64_t>::Run(args...);
		default: return F<uint128>::Run(args...);
		}
	case PhysicalKind::FLOAT:
		return w == 4 ? F<float>::Run(args...) : F<double>::Run(args...);
	case PhysicalKind::STRING:
		return F<StringRef>::Run(args...);
	case PhysicalKind::OPAQUE:
		break;
	}
	throw std::logic_error("vortex: predicate on a column without an order");
}

template <class T>
struct ClassifyOp {
	static ZoneMatch Run(const Predicate &p, const ColumnType &type, const ZoneStats &s) {
		return Classify<T>(p, type, s);
	}
};
template <class T>
struct ShareOp {
	static double Run(const Predicate &p, const ColumnType &type, const ZoneStats &s) {
		return Share<T>(p, type, s);
	}
};
template <class T>
struct EvaluateOp {
	static void Run(const Predicate &p, const ColumnType &type, const DecodedColumn &chunk, uint8_t *out) {
		Evaluate<T>(p, type, chunk, out);
	}
};

const char *OpName(CompareOp op) {
	switch (op) {
	case CompareOp::EQ: return "=";
	case CompareOp::NE: return "!=";
	case CompareOp::LT: return "<";
	case CompareOp::LE: return "<=";
	case CompareOp::GT: return ">";
	case CompareOp::GE: return ">=";
	}
	return "?";
}

} // namespace

bool operator==(const Predicate &a, const Predicate &b) {
	return a.kind == b.kind && a.op == b.op && a.value == b.value && a.values == b.values && a.children == b.children;
}

bool PredicateSupported(const ColumnType &type) {
	// GEOMETRY compares by DuckDB's rules, not as the compute layer's bytes would.
	return type.Kind() != PhysicalKind::OPAQUE && type.id != TypeId::UUID && type.id != TypeId::GEOMETRY;
}

ZoneMatch ClassifyZone(const Predicate &p, const ColumnType &type, const ZoneStats &stats) {
	if (p.IsTrue()) {
		return ZoneMatch::ALL;
	}
	return Dispatch<ClassifyOp>(type, p, type, stats);
}

double EstimateShare(const Predicate &p, const ColumnType &type, const ZoneStats &stats) {
	if (p.IsTrue()) {
		return 1;
	}
	return Dispatch<ShareOp>(type, p, type, stats);
}

namespace {

//! A row's result depends on its value alone, or on its being NULL: the predicate (conjunctions
//! included) over a dictionary's `entries`, then over NULL, as a table of entries + 1 results.
std::vector<uint8_t> EntryTruth(const Predicate &p, const ColumnType &type, const DecodedColumn &entries) {
	DecodedColumn null_row;
	null_row.count = 1;
	null_row.all_valid = false;
	null_row.all_null = true;
	null_row.validity.assign(1, 0);
	std::vector<uint8_t> table(entries.count + 1);
	Dispatch<EvaluateOp>(type, p, type, entries, table.data());
	Dispatch<EvaluateOp>(type, p, type, null_row, table.data() + entries.count);
	return table;
}

//! out[i] = the truth of row `begin + i`'s code (`codes[i]`), or of NULL, for m rows.
void LookUpRows(const std::vector<uint8_t> &table, const DecodedColumn &chunk, const uint32_t *codes, uint64_t begin,
                uint64_t m, uint8_t *out) {
	// Through local pointers: a byte store may alias the vectors' own, which would be loaded again
	// for every row.
	const uint8_t *truth = table.data();
	const uint8_t null_truth = table.back();
	if (chunk.all_valid) {
		for (uint64_t i = 0; i < m; i++) {
			out[i] = truth[codes[i]];
		}
	} else {
		const uint64_t *validity = chunk.validity.data();
		for (uint64_t i = 0; i < m; i++) {
			const uint64_t row = begin + i;
			out[i] = (validity[row >> 6] >> (row & 63)) & 1 ? truth[codes[i]] : null_truth;
		}
	}
}

//! A dictionary's or runs' values as a chunk of their own. They sit in the segment wherever its
//! layout put them, and the evaluation loads them as T: copied out where they are not at T's
//! alignment (a few thousand values a zone at most).
DecodedColumn AlignedEntries(const DeferredValues &f, const ColumnType &type, std::vector<uint64_t> &storage) {
	DecodedColumn entries;
	entries.count = f.size;
	entries.values = f.entries;
	const size_t width = type.ByteWidth();
	if (f.size && width > 1 && reinterpret_cast<uintptr_t>(f.entries) % width != 0) {
		storage.resize((f.size * width + 7) / 8);
		std::memcpy(storage.data(), f.entries, f.size * width);
		entries.values = reinterpret_cast<const uint8_t *>(storage.data());
	}
	return entries;
}

//! A chunk whose values were left packed (DecodedColumn::deferred): a dictionary's predicate is
//! evaluated once per entry and each row looks its code up, runs' once per run; a frame's rows
//! are decoded a block at a time into a buffer that stays in cache. No zone-sized copy is made.
void EvaluateDeferred(const Predicate &p, const ColumnType &type, const DecodedColumn &chunk, uint8_t *out) {
	constexpr uint64_t kBlock = 2048;
	const uint64_t n = chunk.count;
	std::vector<uint64_t> storage;
	if (chunk.deferred.encoding == static_cast<uint8_t>(Encoding::DICTIONARY)) {
		const auto table = EntryTruth(p, type, AlignedEntries(chunk.deferred, type, storage));
		uint32_t codes[kBlock];
		for (uint64_t b = 0; b < n; b += kBlock) {
			const uint64_t m = std::min(kBlock, n - b);
			DecodeCodes(chunk, b, b + m, codes);
			LookUpRows(table, chunk, codes, b, m, out + b);
		}
		return;
	}
	if (chunk.deferred.encoding == static_cast<uint8_t>(Encoding::RLE)) {
		// Once per run, each run's rows then set at once (NULL rows after, by their own truth).
		const auto &f = chunk.deferred;
		const auto table = EntryTruth(p, type, AlignedEntries(f, type, storage));
		uint64_t pos = 0;
		for (uint64_t k = 0; k < f.size; k++) {
			uint32_t end;
			std::memcpy(&end, f.words + k * 4, 4);
			const uint8_t truth = table[k];
			for (; pos < end; pos++) { // runs are short: a call to memset each would cost more
				out[pos] = truth;
			}
		}
		if (!chunk.all_valid) {
			const uint8_t null_truth = table.back();
			for (uint64_t w = 0; w * 64 < n; w++) {
				for (uint64_t bits = ~chunk.validity[w]; bits; bits &= bits - 1) {
					const uint64_t i = w * 64 + static_cast<uint64_t>(__builtin_ctzll(bits));
					if (i < n) {
						out[i] = null_truth;
					}
				}
			}
		}
		return;
	}
	alignas(16) uint8_t values[kBlock * 8];
	DecodedColumn block;
	block.all_valid = chunk.all_valid;
	for (uint64_t b = 0; b < n; b += kBlock) {
		const uint64_t m = std::min(kBlock, n - b);
		DecodeRows(type, chunk, b, b + m, values);
		block.count = m;
		block.values = values;
		if (!chunk.all_valid) {
			// b is a multiple of 64: whole words line up.
			block.validity.assign(chunk.validity.begin() + static_cast<std::ptrdiff_t>(b / 64),
			                      chunk.validity.begin() + static_cast<std::ptrdiff_t>((b + m + 63) / 64));
		}
		Dispatch<EvaluateOp>(type, p, type, block, out + b);
	}
}

} // namespace

void EvaluatePredicate(const Predicate &p, const ColumnType &type, const DecodedColumn &chunk, uint8_t *out) {
	if (chunk.deferred.encoding) {
		EvaluateDeferred(p, type, chunk, out);
		return;
	}
	if (type.IsString() && !chunk.codes.empty() && !chunk.dictionary.empty()) {
		// Once per dictionary entry, instead of comparing a string per row.
		DecodedColumn entries;
		entries.count = chunk.dictionary.size();
		entries.strings = chunk.dictionary;
		LookUpRows(EntryTruth(p, type, entries), chunk, chunk.codes.data(), 0, chunk.count, out);
		return;
	}
	Dispatch<EvaluateOp>(type, p, type, chunk, out);
}

namespace {

//! The constants of `p`, as raw values; false where it reads NULLs (IS NULL).
bool ConstantsOf(const Predicate &p, std::vector<const std::string *> &out) {
	switch (p.kind) {
	case Predicate::Kind::IS_NULL:
		return false;
	case Predicate::Kind::COMPARE:
		out.push_back(&p.value);
		return true;
	case Predicate::Kind::IN:
		for (auto &v : p.values) {
			out.push_back(&v);
		}
		return true;
	case Predicate::Kind::AND:
	case Predicate::Kind::OR:
		for (auto &c : p.children) {
			if (!ConstantsOf(c, out)) {
				return false;
			}
		}
		return true;
	default:
		return true;
	}
}

} // namespace

bool Satisfiable(const Predicate &p, const ColumnType &type) {
	const auto kind = type.Kind();
	const uint32_t width = type.ByteWidth();
	if ((kind != PhysicalKind::SIGNED && kind != PhysicalKind::UNSIGNED) || width == 0 || width > 8) {
		return true;
	}
	std::vector<const std::string *> constants;
	if (!ConstantsOf(p, constants)) {
		return true;
	}
	// Values as offsets from the type's least value, so that signed and unsigned order alike.
	const unsigned bits = width * 8;
	const uint64_t top = bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
	const uint64_t bias = kind == PhysicalKind::SIGNED ? uint64_t(1) << (bits - 1) : 0;
	std::vector<uint64_t> candidates {0, top};
	for (auto *raw : constants) {
		if (raw->size() != width) {
			return true;
		}
		uint64_t v = 0;
		std::memcpy(&v, raw->data(), width); // little-endian storage
		const uint64_t at = (v + bias) & top;
		candidates.push_back(at);
		if (at > 0) {
			candidates.push_back(at - 1);
		}
		if (at < top) {
			candidates.push_back(at + 1);
		}
	}
	DecodedColumn values;
	values.count = candidates.size();
	values.fixed.resize(candidates.size() * width);
	for (size_t i = 0; i < candidates.size(); i++) {
		const uint64_t v = (candidates[i] - bias) & top;
		std::memcpy(values.fixed.data() + i * width, &v, width);
	}
	std::vector<uint8_t> holds(candidates.size());
	EvaluatePredicate(p, type, values, holds.data());
	return std::find(holds.begin(), holds.end(), 1) != holds.end();
}

void Predicate::Serialize(ByteWriter &w) const {
	w.U8(static_cast<uint8_t>(kind));
	w.U8(static_cast<uint8_t>(op));
	w.Str(value);
	w.Var(values.size());
	for (auto &v : values) {
		w.Str(v);
	}
	w.Var(children.size());
	for (auto &c : children) {
		c.Serialize(w);
	}
}

namespace {

constexpr int kMaxPredicateDepth = 64;

Predicate ReadPredicate(ByteReader &r, int depth) {
	if (depth > kMaxPredicateDepth) {
		throw FormatError("a predicate is nested too deeply");
	}
	Predicate p;
	const auto kind = r.U8();
	const auto op = r.U8();
	if (kind > static_cast<uint8_t>(Predicate::Kind::OR) || op > static_cast<uint8_t>(CompareOp::GE)) {
		throw FormatError("a predicate is malformed");
	}
	p.kind = static_cast<Predicate::Kind>(kind);
	p.op = static_cast<CompareOp>(op);
	p.value = r.Str();
	p.values.resize(r.Count(1));
	for (auto &v : p.values) {
		v = r.Str();
	}
	p.children.resize(r.Count(3));
	for (auto &c : p.children) {
		c = ReadPredicate(r, depth + 1);
	}
	return p;
}

} // namespace

Predicate Predicate::Deserialize(ByteReader &r) {
	return ReadPredicate(r, 0);
}

std::string Predicate::ToString() const {
	switch (kind) {
	case Kind::ALWAYS_TRUE: return "true";
	case Kind::IS_NULL: return "IS NULL";
	case Kind::IS_NOT_NULL: return "IS NOT NULL";
	case Kind::COMPARE: return OpName(op);
	case Kind::IN: return "IN (" + std::to_string(values.size()) + ")";
	case Kind::AND:
	case Kind::OR: {
		std::string s;
		for (auto &c : children) {
			s += (s.empty() ? "" : kind == Kind::AND ? " AND " : " OR ") + c.ToString();
		}
		return "(" + s + ")";
	}
	}
	return "?";
}

} // namespace compute
} // namespace vtx
