#include "grouped_aggregation.hpp"

#include "../format/stats_builder.hpp"

#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>

namespace vtx {
namespace compute {

namespace {

constexpr uint32_t kNoId = ~uint32_t(0);
//! Combined ids of several key columns are used as array indexes up to this many; beyond it
//! they are renumbered densely through a hash table.
constexpr uint64_t kDirectIds = uint64_t(1) << 16;

struct Bytes16 {
	uint64_t lo, hi;
	bool operator==(const Bytes16 &o) const {
		return lo == o.lo && hi == o.hi;
	}
};

inline uint64_t Mix(uint64_t x) {
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}
inline uint64_t HashOf(uint64_t x) {
	return Mix(x);
}
inline uint64_t HashOf(const Bytes16 &x) {
	return Mix(x.lo ^ Mix(x.hi));
}

//! Open addressing from a key to the dense id it was first given.
template <class K>
class IdTable {
public:
	void Reset() {
		mask = 255;
		used = 0;
		keys.resize(mask + 1);
		ids.assign(mask + 1, kNoId);
	}
	//! The id of `key`, or `next` (recorded for it) when it is new.
	uint32_t FindOrInsert(const K &key, uint32_t next) {
		if ((used + 1) * 2 > mask + 1) {
			Grow();
		}
		for (uint64_t h = HashOf(key) & mask;; h = (h + 1) & mask) {
			if (ids[h] == kNoId) {
				keys[h] = key;
				ids[h] = next;
				used++;
				return next;
			}
			if (keys[h] == key) {
				return ids[h];
			}
		}
	}

private:
	void Grow() {
		std::vector<K> old_keys;
		std::vector<uint32_t> old_ids;
		old_keys.swap(keys);
		old_ids.swap(ids);
		mask = mask * 2 + 1;
		keys.resize(mask + 1);
		ids.assign(mask + 1, kNoId);
		for (size_t i = 0; i < old_ids.size(); i++) {
			if (old_ids[i] == kNoId) {
				continue;
			}
			uint64_t h = HashOf(old_keys[i]) & mask;
			while (ids[h] != kNoId) {
				h = (h + 1) & mask;
			}
			keys[h] = old_keys[i];
			ids[h] = old_ids[i];
		}
	}

	uint64_t mask = 0, used = 0;
	std::vector<K> keys;
	std::vector<uint32_t> ids;
};

//! A dense id per row of one key column (equal keys, equal ids; NULL is an id of its own).
struct KeyIds {
	const uint32_t *ids = nullptr; //! `own`, or a dictionary chunk's codes themselves
	std::vector<uint32_t> own;
	uint64_t card = 0; //! ids are < card
};

template <class T>
void FixedIds(const DecodedColumn &c, KeyIds &out, IdTable<T> &table) {
	const uint64_t rows = c.count;
	out.own.resize(rows);
	table.Reset();
	uint32_t card = 0, null_id = kNoId, prev_id = kNoId;
	T prev {};
	const uint8_t *base = c.Fixed();
	for (uint64_t i = 0; i < rows; i++) {
		if (!c.IsValid(i)) {
			null_id = null_id == kNoId ? card++ : null_id;
			out.own[i] = null_id;
			continue;
		}
		T x;
		std::memcpy(&x, base + i * sizeof(T), sizeof(T));
		// Clustered keys come in runs: a row equal to the previous valid one takes its id.
		if (prev_id != kNoId && x == prev) {
			out.own[i] = prev_id;
			continue;
		}
		auto id = table.FindOrInsert(x, card);
		card += id == card;
		out.own[i] = prev_id = id;
		prev = x;
	}
	out.ids = out.own.data();
	out.card = card;
}

//! Strings that are not dictionary-coded, and fixed-width values of no integer width.
void BytesIds(const ColumnType &type, const DecodedColumn &c, KeyIds &out,
              std::unordered_map<std::string_view, uint32_t> &table) {
	const uint64_t rows = c.count;
	const auto width = type.ByteWidth();
	out.own.resize(rows);
	table.clear();
	uint32_t card = 0, null_id = kNoId, prev_id = kNoId;
	std::string_view prev;
	for (uint64_t i = 0; i < rows; i++) {
		if (!c.IsValid(i)) {
			null_id = null_id == kNoId ? card++ : null_id;
			out.own[i] = null_id;
			continue;
		}
		std::string_view x;
		if (width == 0) {
			auto &r = c.StringAt(i);
			x = std::string_view(r.ptr, r.len);
		} else {
			x = std::string_view(reinterpret_cast<const char *>(c.Fixed()) + i * width, width);
		}
		if (prev_id != kNoId && x == prev) {
			out.own[i] = prev_id;
			continue;
		}
		auto it = table.emplace(x, card).first;
		card += it->second == card;
		out.own[i] = prev_id = it->second;
		prev = x;
	}
	out.ids = out.own.data();
	out.card = card;
}

bool RowValid(const DecodedColumn &c, uint64_t i) {
	return !c.all_null && c.IsValid(i);
}

std::string RawAt(const ColumnType &type, const DecodedColumn &c, uint64_t i) {
	auto width = type.ByteWidth();
	if (width == 0) {
		auto &r = c.StringAt(i);
		return std::string(r.ptr, r.len);
	}
	return std::string(reinterpret_cast<const char *>(c.Fixed()) + i * width, width);
}

template <class T>
struct IntAcc {
	uint64_t n;
	int128 sum;
	T lo, hi;
};

struct FloatAcc {
	uint64_t n, nans, pos, neg;
	double sum;
};

template <class T, bool VALIDITY, bool SELECTION>
void IntLoop(const uint32_t *ids, const DecodedColumn &c, const uint8_t *selected, IntAcc<T> *acc) {
	const uint8_t *base = c.Fixed();
	for (uint64_t i = 0; i < c.count; i++) {
		if ((SELECTION && !selected[i]) || (VALIDITY && !c.IsValid(i))) {
			continue;
		}
		T x;
		std::memcpy(&x, base + i * sizeof(T), sizeof(T));
		auto &a = acc[ids[i]];
		a.n++;
		a.sum += static_cast<int128>(x);
		a.lo = x < a.lo ? x : a.lo;
		a.hi = x > a.hi ? x : a.hi;
	}
}

template <class T, bool VALIDITY, bool SELECTION>
void FloatLoop(const uint32_t *ids, const DecodedColumn &c, const uint8_t *selected, FloatAcc *acc) {
	const uint8_t *base = c.Fixed();
	for (uint64_t i = 0; i < c.count; i++) {
		if ((SELECTION && !selected[i]) || (VALIDITY && !c.IsValid(i))) {
			continue;
		}
		T x;
		std::memcpy(&x, base + i * sizeof(T), sizeof(T));
		const bool nan = x != x;
		const bool inf = !nan && (x == std::numeric_limits<T>::infinity() || x == -std::numeric_limits<T>::infinity());
		auto &a = acc[ids[i]];
		a.n++;
		a.nans += nan;
		a.pos += inf && x > 0;
		a.neg += inf && x < 0;
		// As the writer's statistics: finite values only, in row order.
		a.sum += (nan || inf) ? 0.0 : static_cast<double>(x);
	}
}

//! Calls run(validity, selection) with both as compile-time constants.
template <class F>
void Dispatch(const DecodedColumn &c, const uint8_t *selected, F &&run) {
	using Yes = std::true_type;
	using No = std::false_type;
	if (c.all_valid) {
		selected ? run(No(), Yes()) : run(No(), No());
	} else {
		selected ? run(Yes(), Yes()) : run(Yes(), No());
	}
}

} // namespace

//! Reused from zone to zone by one accumulation (one thread).
struct GroupedAggregation::Scratch {
	std::vector<KeyIds> keys;
	std::vector<uint64_t> combined;
	std::vector<uint32_t> ids, first, order;
	std::vector<uint64_t> rows, offsets;
	std::vector<size_t> group;
	IdTable<uint8_t> t8;
	IdTable<uint16_t> t16;
	IdTable<uint32_t> t32;
	IdTable<uint64_t> t64;
	IdTable<Bytes16> t128;
	std::unordered_map<std::string_view, uint32_t> bytes;
	std::vector<char> acc;
	std::vector<uint8_t> valid;
	ByteBuffer fixed;
	std::vector<StringRef> strings;
};

GroupedAggregation::GroupedAggregation(std::vector<ColumnType> key_types_p, std::vector<ColumnType> value_types_p,
                                       std::vector<bool> needs_minmax_p, std::vector<bool> needs_sum_p)
    : key_types(std::move(key_types_p)), value_types(std::move(value_types_p)),
      needs_minmax(std::move(needs_minmax_p)), needs_sum(std::move(needs_sum_p)) {
	needs_minmax.resize(value_types.size(), true);
	needs_sum.resize(value_types.size(), true);
}

bool GroupedAggregation::ConstantKey(const ColumnType &type, const ZoneStats &stats, bool &is_null, std::string &key) {
	if (stats.rows > 0 && stats.nulls == stats.rows) {
		is_null = true;
		key.clear();
		return true;
	}
	// Equal bytes are equal keys for every type the DuckDB layer admits as a key.
	if (stats.nulls > 0 || stats.nans > 0 || !stats.has_minmax || !stats.minmax_exact || stats.min != stats.max) {
		return false;
	}
	is_null = false;
	key = stats.min;
	return true;
}

std::string GroupedAggregation::Encode(const std::vector<bool> &key_null, const std::vector<std::string> &keys) const {
	std::string out;
	for (size_t k = 0; k < keys.size(); k++) {
		out.push_back(key_null[k] ? '\0' : '\1');
		if (!key_null[k]) {
			uint32_t len = static_cast<uint32_t>(keys[k].size());
			out.append(reinterpret_cast<const char *>(&len), sizeof(len));
			out.append(keys[k]);
		}
	}
	return out;
}

AggregateState GroupedAggregation::NewState(size_t v) const {
	AggregateState s(value_types[v]);
	s.needs_minmax = needs_minmax[v];
	s.needs_sum = needs_sum[v];
	return s;
}

GroupState &GroupedAggregation::Find(const std::vector<bool> &key_null, const std::vector<std::string> &keys) {
	auto encoded = Encode(key_null, keys);
	auto it = index.find(encoded);
	if (it != index.end()) {
		return groups[it->second];
	}
	GroupState g;
	g.keys = keys;
	g.key_null = key_null;
	for (size_t v = 0; v < value_types.size(); v++) {
		g.values.push_back(NewState(v));
	}
	index.emplace(std::move(encoded), groups.size());
	groups.push_back(std::move(g));
	return groups.back();
}

void GroupedAggregation::AddZone(const std::vector<bool> &key_null, const std::vector<std::string> &keys, uint64_t rows,
                                 const std::vector<const ZoneStats *> &values) {
	auto &g = Find(key_null, keys);
	g.rows += rows;
	for (size_t v = 0; v < values.size(); v++) {
		g.values[v].AddStats(*values[v]);
	}
}

void GroupedAggregation::Merge(const GroupedAggregation &other) {
	for (auto &o : other.groups) {
		auto &g = Find(o.key_null, o.keys);
		g.rows += o.rows;
		for (size_t v = 0; v < o.values.size(); v++) {
			g.values[v].Merge(o.values[v]);
		}
	}
}

namespace {

//! Dense ids for one key column's rows. Dictionary codes are ids already (NULL takes the one
//! past the dictionary); other columns go through a hash table keyed by value.
void ColumnIds(const ColumnType &type, const DecodedColumn &c, KeyIds &out, GroupedAggregation::Scratch &s);

//! Renumbers `values` densely (first seen, first numbered); returns how many distinct.
uint64_t Densify(std::vector<uint64_t> &values, IdTable<uint64_t> &table) {
	table.Reset();
	uint32_t next = 0;
	for (auto &v : values) {
		auto id = table.FindOrInsert(v, next);
		next += id == next;
		v = id;
	}
	return next;
}

} // namespace

void GroupedAggregation::AddDecoded(const std::vector<const DecodedColumn *> &keys,
                                    const std::vector<const DecodedColumn *> &values, const uint8_t *selected) {
	const uint64_t rows = keys.empty() ? 0 : keys[0]->count;
	if (rows == 0) {
		return;
	}
	if (!scratch) {
		scratch = std::make_shared<Scratch>();
	}
	auto &s = *scratch;
	// 1. A dense id per row for the tuple of its keys: per column, then combined.
	s.keys.resize(keys.size());
	for (size_t k = 0; k < keys.size(); k++) {
		ColumnIds(key_types[k], *keys[k], s.keys[k], s);
	}
	const uint32_t *ids;
	uint64_t card;
	if (keys.size() == 1) {
		ids = s.keys[0].ids;
		card = s.keys[0].card;
	} else {
		s.combined.resize(rows);
		card = s.keys[0].card;
		for (uint64_t i = 0; i < rows; i++) {
			s.combined[i] = s.keys[0].ids[i];
		}
		for (size_t k = 1; k < keys.size(); k++) {
			// Products stay below 2^63: card <= 2^32 here, and a column's ids are at most its rows.
			if (card > std::numeric_limits<uint32_t>::max()) {
				card = Densify(s.combined, s.t64);
			}
			auto &col = s.keys[k];
			for (uint64_t i = 0; i < rows; i++) {
				s.combined[i] = s.combined[i] * col.card + col.ids[i];
			}
			card *= col.card;
		}
		if (card > kDirectIds) {
			card = Densify(s.combined, s.t64);
		}
		s.ids.resize(rows);
		for (uint64_t i = 0; i < rows; i++) {
			s.ids[i] = static_cast<uint32_t>(s.combined[i]);
		}
		ids = s.ids.data();
	}
	// 2. Rows per id, and one row of each: its keys are the group's.
	s.rows.assign(card, 0);
	s.first.resize(card);
	if (selected) {
		for (uint64_t i = 0; i < rows; i++) {
			if (selected[i] && s.rows[ids[i]]++ == 0) {
				s.first[ids[i]] = static_cast<uint32_t>(i);
			}
		}
	} else {
		for (uint64_t i = 0; i < rows; i++) {
			if (s.rows[ids[i]]++ == 0) {
				s.first[ids[i]] = static_cast<uint32_t>(i);
			}
		}
	}
	// 3. Each id's group, found once per zone.
	s.group.assign(card, 0);
	std::vector<bool> key_null(keys.size());
	std::vector<std::string> key(keys.size());
	for (uint64_t id = 0; id < card; id++) {
		if (s.rows[id] == 0) {
			continue;
		}
		auto r = s.first[id];
		for (size_t k = 0; k < keys.size(); k++) {
			key_null[k] = !RowValid(*keys[k], r);
			key[k] = key_null[k] ? std::string() : RawAt(key_types[k], *keys[k], r);
		}
		s.group[id] = static_cast<size_t>(&Find(key_null, key) - groups.data());
		groups[s.group[id]].rows += s.rows[id];
	}
	// 4. Per value column, one pass adding each row to its id's accumulator.
	for (size_t v = 0; v < values.size(); v++) {
		AccumulateValues(v, *values[v], ids, card, selected);
	}
}

void GroupedAggregation::AccumulateValues(size_t v, const DecodedColumn &col, const uint32_t *ids, uint64_t card,
                                          const uint8_t *selected) {
	auto &s = *scratch;
	auto &type = value_types[v];
	const auto width = type.ByteWidth();
	auto each_group = [&](auto &&add) {
		for (uint64_t id = 0; id < card; id++) {
			if (s.rows[id] != 0) {
				add(id, groups[s.group[id]].values[v]);
			}
		}
	};
	if (col.all_null) {
		each_group([&](uint64_t id, AggregateState &state) {
			ZoneStats z;
			z.rows = z.nulls = s.rows[id];
			state.AddStats(z);
		});
		return;
	}
	if (type.HasIntegerSum()) {
		auto run = [&](auto tag) {
			using T = decltype(tag);
			using Acc = IntAcc<T>;
			s.acc.resize(card * sizeof(Acc) + alignof(Acc));
			void *raw = s.acc.data();
			size_t space = s.acc.size();
			auto *acc = static_cast<Acc *>(std::align(alignof(Acc), card * sizeof(Acc), raw, space));
			for (uint64_t id = 0; id < card; id++) {
				acc[id] = Acc {0, 0, std::numeric_limits<T>::max(), std::numeric_limits<T>::lowest()};
			}
			Dispatch(col, selected, [&](auto validity, auto selection) {
				IntLoop<T, decltype(validity)::value, decltype(selection)::value>(ids, col, selected, acc);
			});
			each_group([&](uint64_t id, AggregateState &state) {
				auto &a = acc[id];
				ZoneStats z;
				z.rows = s.rows[id];
				z.nulls = z.rows - a.n;
				z.has_int_sum = true;
				z.int_sum = a.sum;
				if (a.n) {
					z.has_minmax = z.minmax_exact = true;
					z.min.assign(reinterpret_cast<const char *>(&a.lo), sizeof(T));
					z.max.assign(reinterpret_cast<const char *>(&a.hi), sizeof(T));
				}
				state.AddStats(z);
			});
		};
		const bool sgn = type.Kind() == PhysicalKind::SIGNED;
		switch (width) {
		case 1: sgn ? run(int8_t()) : run(uint8_t()); return;
		case 2: sgn ? run(int16_t()) : run(uint16_t()); return;
		case 4: sgn ? run(int32_t()) : run(uint32_t()); return;
		case 8: sgn ? run(int64_t()) : run(uint64_t()); return;
		default: break;
		}
	}
	if (type.IsFloat() && !needs_minmax[v]) {
		s.acc.resize(card * sizeof(FloatAcc) + alignof(FloatAcc));
		void *raw = s.acc.data();
		size_t space = s.acc.size();
		auto *acc = static_cast<FloatAcc *>(std::align(alignof(FloatAcc), card * sizeof(FloatAcc), raw, space));
		for (uint64_t id = 0; id < card; id++) {
			acc[id] = FloatAcc {0, 0, 0, 0, 0.0};
		}
		Dispatch(col, selected, [&](auto validity, auto selection) {
			constexpr bool V = decltype(validity)::value, S = decltype(selection)::value;
			width == 4 ? FloatLoop<float, V, S>(ids, col, selected, acc) : FloatLoop<double, V, S>(ids, col, selected, acc);
		});
		each_group([&](uint64_t id, AggregateState &state) {
			auto &a = acc[id];
			ZoneStats z;
			z.rows = s.rows[id];
			z.nulls = z.rows - a.n;
			z.nans = a.nans;
			z.pos_inf = a.pos;
			z.neg_inf = a.neg;
			z.has_float_sum = true;
			z.finite_sum = a.sum;
			state.AddStats(z);
		});
		return;
	}
	// Everything else (strings, 128-bit integers, float min/max): each group's rows gathered
	// in row order and summarised exactly as the writer summarises a zone.
	s.offsets.assign(card + 1, 0);
	for (uint64_t id = 0; id < card; id++) {
		s.offsets[id + 1] = s.offsets[id] + s.rows[id];
	}
	s.order.resize(s.offsets[card]);
	{
		std::vector<uint64_t> cursor(s.offsets.begin(), s.offsets.end() - 1);
		for (uint64_t i = 0; i < col.count; i++) {
			if (!selected || selected[i]) {
				s.order[cursor[ids[i]]++] = static_cast<uint32_t>(i);
			}
		}
	}
	each_group([&](uint64_t id, AggregateState &state) {
		const uint32_t *sel = s.order.data() + s.offsets[id];
		const uint64_t n = s.rows[id];
		s.valid.resize(n);
		ColumnInput in;
		in.type = type;
		in.count = n;
		in.valid = s.valid.data();
		if (width) {
			s.fixed.resize(n * width);
			in.fixed = s.fixed.data();
		} else {
			s.strings.resize(n);
			in.strings = s.strings.data();
		}
		for (uint64_t j = 0; j < n; j++) {
			auto i = sel[j];
			s.valid[j] = RowValid(col, i);
			if (!s.valid[j]) {
				if (width) {
					std::memset(s.fixed.data() + j * width, 0, width);
				} else {
					s.strings[j] = StringRef {"", 0};
				}
			} else if (width) {
				std::memcpy(s.fixed.data() + j * width, col.Fixed() + i * width, width);
			} else {
				s.strings[j] = col.StringAt(i);
			}
		}
		state.AddStats(ComputeStats(in, false));
	});
}

namespace {

void ColumnIds(const ColumnType &type, const DecodedColumn &c, KeyIds &out, GroupedAggregation::Scratch &s) {
	const uint64_t rows = c.count;
	if (c.all_null) {
		out.own.assign(rows, 0);
		out.ids = out.own.data();
		out.card = 1;
		return;
	}
	if (!c.codes.empty()) {
		const uint32_t null_id = static_cast<uint32_t>(c.dictionary.size());
		out.card = uint64_t(null_id) + 1;
		if (c.all_valid) {
			out.ids = c.codes.data();
			return;
		}
		out.own.resize(rows);
		for (uint64_t i = 0; i < rows; i++) {
			out.own[i] = c.IsValid(i) ? c.codes[i] : null_id;
		}
		out.ids = out.own.data();
		return;
	}
	switch (type.IsString() ? 0 : type.ByteWidth()) {
	case 1: return FixedIds(c, out, s.t8);
	case 2: return FixedIds(c, out, s.t16);
	case 4: return FixedIds(c, out, s.t32);
	case 8: return FixedIds(c, out, s.t64);
	case 16: return FixedIds(c, out, s.t128);
	default: return BytesIds(type, c, out, s.bytes);
	}
}

} // namespace

} // namespace compute
} // namespace vtx
