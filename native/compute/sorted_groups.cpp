#include "sorted_groups.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace vtx {
namespace compute {

void SortedGroups::Clear(size_t aggregates) {
	keys.clear();
	rows.clear();
	acc.resize(aggregates);
	counts.resize(aggregates);
	for (size_t a = 0; a < aggregates; a++) {
		acc[a].clear();
		counts[a].clear();
	}
}

SortedGrouper::SortedGrouper(IntegerLayout key_p, std::vector<IntegerLayout> values_p,
                             std::vector<SortedAggregateSpec> aggregates_p)
    : key(key_p), values(std::move(values_p)), aggregates(std::move(aggregates_p)) {
}

namespace {

//! Row of position p: idx[p], or p itself where the rows are contiguous (idx null).
inline uint64_t RowAt(const uint32_t *idx, uint64_t p) {
	return idx ? idx[p] : p;
}

//! One aggregate over every group: group g holds positions [starts[g], starts[g + 1]).
template <class T>
void AccumulateRuns(const uint8_t *bytes, const DecodedColumn &col, const uint32_t *idx, const std::vector<uint64_t> &starts,
                    uint64_t positions, SortedAggregate kind, std::vector<__int128> &acc, std::vector<uint64_t> &counts) {
	const T *data = reinterpret_cast<const T *>(bytes);
	const size_t groups = starts.size();
	for (size_t g = 0; g < groups; g++) {
		const uint64_t begin = starts[g], end = g + 1 < groups ? starts[g + 1] : positions;
		uint64_t count = 0;
		if (kind == SortedAggregate::COUNT) {
			if (col.all_valid) {
				count = end - begin;
			} else {
				for (uint64_t p = begin; p < end; p++) {
					count += col.IsValid(RowAt(idx, p));
				}
			}
		} else if (kind == SortedAggregate::SUM) {
			__int128 sum = 0;
			for (uint64_t p = begin; p < end; p++) {
				const uint64_t i = RowAt(idx, p);
				if (col.all_valid || col.IsValid(i)) {
					sum += static_cast<__int128>(data[i]);
					count++;
				}
			}
			acc[g] = sum;
		} else {
			T best = 0;
			for (uint64_t p = begin; p < end; p++) {
				const uint64_t i = RowAt(idx, p);
				if (col.all_valid || col.IsValid(i)) {
					const T v = data[i];
					if (count == 0 || (kind == SortedAggregate::MIN ? v < best : v > best)) {
						best = v;
					}
					count++;
				}
			}
			acc[g] = static_cast<__int128>(best);
		}
		counts[g] = count;
	}
}

void AccumulateColumn(const IntegerLayout &layout, const DecodedColumn &col, const uint32_t *idx,
                      const std::vector<uint64_t> &starts, uint64_t positions, SortedAggregate kind,
                      std::vector<__int128> &acc, std::vector<uint64_t> &counts) {
	const uint8_t *bytes = col.Fixed();
	switch (layout.width * 2 + (layout.is_signed ? 1 : 0)) {
	case 3: return AccumulateRuns<int8_t>(bytes, col, idx, starts, positions, kind, acc, counts);
	case 2: return AccumulateRuns<uint8_t>(bytes, col, idx, starts, positions, kind, acc, counts);
	case 5: return AccumulateRuns<int16_t>(bytes, col, idx, starts, positions, kind, acc, counts);
	case 4: return AccumulateRuns<uint16_t>(bytes, col, idx, starts, positions, kind, acc, counts);
	case 9: return AccumulateRuns<int32_t>(bytes, col, idx, starts, positions, kind, acc, counts);
	case 8: return AccumulateRuns<uint32_t>(bytes, col, idx, starts, positions, kind, acc, counts);
	case 17: return AccumulateRuns<int64_t>(bytes, col, idx, starts, positions, kind, acc, counts);
	default: return AccumulateRuns<uint64_t>(bytes, col, idx, starts, positions, kind, acc, counts);
	}
}

//! Starts of the runs of equal keys among `positions` positions, and each run's key bits;
//! false (and nothing usable) where a key is smaller than the one before it.
template <class T>
bool FindRuns(const uint8_t *bytes, const uint32_t *idx, uint64_t positions, std::vector<uint64_t> &starts,
              std::vector<uint64_t> &keys) {
	using U = typename std::make_unsigned<T>::type;
	const T *data = reinterpret_cast<const T *>(bytes);
	starts.resize(positions);
	keys.resize(positions);
	size_t groups = 0;
	T current = 0;
	for (uint64_t p = 0; p < positions; p++) {
		const T k = data[RowAt(idx, p)];
		if (p == 0 || k != current) {
			if (p > 0 && k < current) {
				return false;
			}
			current = k;
			starts[groups] = p;
			keys[groups] = static_cast<U>(k);
			groups++;
		}
	}
	starts.resize(groups);
	keys.resize(groups);
	return true;
}

bool FindRunsOf(const IntegerLayout &key, const uint8_t *bytes, const uint32_t *idx, uint64_t positions,
                std::vector<uint64_t> &starts, std::vector<uint64_t> &keys) {
	switch (key.width * 2 + (key.is_signed ? 1 : 0)) {
	case 3: return FindRuns<int8_t>(bytes, idx, positions, starts, keys);
	case 2: return FindRuns<uint8_t>(bytes, idx, positions, starts, keys);
	case 5: return FindRuns<int16_t>(bytes, idx, positions, starts, keys);
	case 4: return FindRuns<uint16_t>(bytes, idx, positions, starts, keys);
	case 9: return FindRuns<int32_t>(bytes, idx, positions, starts, keys);
	case 8: return FindRuns<uint32_t>(bytes, idx, positions, starts, keys);
	case 17: return FindRuns<int64_t>(bytes, idx, positions, starts, keys);
	default: return FindRuns<uint64_t>(bytes, idx, positions, starts, keys);
	}
}

} // namespace

void SortedGrouper::GroupZone(const DecodedColumn &key_column, const std::vector<const DecodedColumn *> &value_columns,
                              const uint8_t *selected, uint64_t n, SortedGroups &out) {
	const uint8_t *keys = key_column.Fixed();
	out.Clear(aggregates.size());
	// The rows in key order: all of them as they lie where sorted and unfiltered (the common
	// case: no list at all), else a list of the selected rows, sorted by key where they are not.
	const uint32_t *idx = nullptr;
	uint64_t positions = n;
	if (selected) {
		order.clear();
		for (uint64_t i = 0; i < n; i++) {
			if (selected[i]) {
				order.push_back(static_cast<uint32_t>(i));
			}
		}
		idx = order.data();
		positions = order.size();
	}
	if (!FindRunsOf(key, keys, idx, positions, starts, out.keys)) {
		if (!selected) {
			order.resize(n);
			for (uint64_t i = 0; i < n; i++) {
				order[i] = static_cast<uint32_t>(i);
			}
		}
		SortByKey(keys);
		idx = order.data();
		if (!FindRunsOf(key, keys, idx, positions, starts, out.keys)) {
			throw std::logic_error("vortex: a zone's rows are not in key order after sorting them");
		}
	}
	const size_t groups = starts.size();
	out.rows.resize(groups);
	for (size_t g = 0; g < groups; g++) {
		out.rows[g] = (g + 1 < groups ? starts[g + 1] : positions) - starts[g];
	}
	for (size_t a = 0; a < aggregates.size(); a++) {
		out.acc[a].resize(groups);
		out.counts[a].resize(groups);
		if (aggregates[a].kind == SortedAggregate::COUNT_STAR) {
			continue;
		}
		const auto v = aggregates[a].value;
		AccumulateColumn(values[v], *value_columns[v], idx, starts, positions, aggregates[a].kind, out.acc[a],
		                 out.counts[a]);
	}
}

void SortedGrouper::SortByKey(const uint8_t *keys) {
	const size_t kw = key.width, n = order.size();
	uint64_t lo = ~uint64_t(0), hi = 0;
	for (auto row : order) {
		const uint64_t k = key.Ordered(keys + size_t(row) * kw);
		lo = k < lo ? k : lo;
		hi = k > hi ? k : hi;
	}
	if (n == 0) {
		return;
	}
	// Keys within a few times as many values as rows (a clustered key shuffled within its zones):
	// a counting sort, two passes. A sort of (key, row) pairs (n log n) was slower than DuckDB's
	// hash aggregate on such zones. The order among equal keys does not matter here.
	if (hi - lo < 4 * uint64_t(n)) {
		slots.assign(hi - lo + 2, 0);
		for (auto row : order) {
			slots[key.Ordered(keys + size_t(row) * kw) - lo + 1]++;
		}
		for (size_t i = 1; i < slots.size(); i++) {
			slots[i] += slots[i - 1];
		}
		sorted.resize(n);
		for (auto row : order) {
			sorted[slots[key.Ordered(keys + size_t(row) * kw) - lo]++] = row;
		}
		order.swap(sorted);
		return;
	}
	pairs.resize(n);
	for (size_t p = 0; p < n; p++) {
		pairs[p] = {key.Ordered(keys + size_t(order[p]) * kw), order[p]};
	}
	std::sort(pairs.begin(), pairs.end());
	for (size_t p = 0; p < n; p++) {
		order[p] = pairs[p].second;
	}
}

void SortedGrouper::MergeGroup(SortedGroups &into, size_t j, const SortedGroups &from, size_t i) const {
	into.rows[j] += from.rows[i];
	for (size_t a = 0; a < aggregates.size(); a++) {
		const auto kind = aggregates[a].kind;
		const uint64_t theirs = from.counts[a][i];
		if (theirs > 0 && (kind == SortedAggregate::SUM || kind == SortedAggregate::MIN || kind == SortedAggregate::MAX)) {
			auto &acc = into.acc[a][j];
			const __int128 v = from.acc[a][i];
			if (kind == SortedAggregate::SUM) {
				acc += v;
			} else if (into.counts[a][j] == 0 || (kind == SortedAggregate::MIN ? v < acc : v > acc)) {
				acc = v;
			}
		}
		into.counts[a][j] += theirs;
	}
}

void SortedGrouper::CopyGroup(SortedGroups &into, const SortedGroups &from, size_t i) const {
	into.keys.push_back(from.keys[i]);
	into.rows.push_back(from.rows[i]);
	into.acc.resize(aggregates.size());
	into.counts.resize(aggregates.size());
	for (size_t a = 0; a < aggregates.size(); a++) {
		into.acc[a].push_back(from.acc[a][i]);
		into.counts[a].push_back(from.counts[a][i]);
	}
}

} // namespace compute
} // namespace vtx
