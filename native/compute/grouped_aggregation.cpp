#include "grouped_aggregation.hpp"

#include "../format/stats_builder.hpp"

#include <cstring>

namespace vtx {
namespace compute {

GroupedAggregation::GroupedAggregation(std::vector<ColumnType> key_types_p, std::vector<ColumnType> value_types_p)
    : key_types(std::move(key_types_p)), value_types(std::move(value_types_p)) {
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

GroupState &GroupedAggregation::Find(const std::vector<bool> &key_null, const std::vector<std::string> &keys) {
	auto encoded = Encode(key_null, keys);
	auto it = index.find(encoded);
	if (it != index.end()) {
		return groups[it->second];
	}
	GroupState g;
	g.keys = keys;
	g.key_null = key_null;
	for (auto &t : value_types) {
		g.values.emplace_back(t);
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

namespace {

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

bool SameKeys(const std::vector<ColumnType> &types, const std::vector<const DecodedColumn *> &keys, uint64_t a,
              uint64_t b) {
	for (size_t k = 0; k < keys.size(); k++) {
		auto &c = *keys[k];
		bool va = RowValid(c, a), vb = RowValid(c, b);
		if (va != vb) {
			return false;
		}
		if (!va) {
			continue;
		}
		auto width = types[k].ByteWidth();
		if (width == 0) {
			auto &x = c.StringAt(a), &y = c.StringAt(b);
			if (x.len != y.len || (x.len && std::memcmp(x.ptr, y.ptr, x.len) != 0)) {
				return false;
			}
		} else if (std::memcmp(c.Fixed() + a * width, c.Fixed() + b * width, width) != 0) {
			return false;
		}
	}
	return true;
}

} // namespace

void GroupedAggregation::AddDecoded(const std::vector<const DecodedColumn *> &keys,
                                    const std::vector<const DecodedColumn *> &values, const uint8_t *selected) {
	const uint64_t rows = keys.empty() ? 0 : keys[0]->count;
	// One pass assigns each row its group; then each group's rows are gathered per value column
	// and summarised exactly as the writer summarises a zone.
	std::vector<size_t> group_of(rows);
	std::vector<bool> key_null(keys.size());
	std::vector<std::string> key(keys.size());
	std::unordered_map<std::string, size_t> local;
	std::vector<size_t> local_groups;
	constexpr size_t kLeftOut = ~size_t(0);
	for (uint64_t i = 0; i < rows; i++) {
		if (selected && !selected[i]) {
			group_of[i] = kLeftOut;
			continue;
		}
		// Clustered keys come in runs: a row whose keys equal the previous row's joins its group.
		if (i > 0 && group_of[i - 1] != kLeftOut && SameKeys(key_types, keys, i - 1, i)) {
			group_of[i] = group_of[i - 1];
			continue;
		}
		std::string encoded;
		for (size_t k = 0; k < keys.size(); k++) {
			key_null[k] = !RowValid(*keys[k], i);
			key[k] = key_null[k] ? std::string() : RawAt(key_types[k], *keys[k], i);
		}
		encoded = Encode(key_null, key);
		auto it = local.find(encoded);
		if (it == local.end()) {
			auto &g = Find(key_null, key);
			it = local.emplace(std::move(encoded), local_groups.size()).first;
			local_groups.push_back(static_cast<size_t>(&g - groups.data()));
		}
		group_of[i] = it->second;
	}
	std::vector<std::vector<uint64_t>> rows_of(local_groups.size());
	for (uint64_t i = 0; i < rows; i++) {
		if (group_of[i] != kLeftOut) {
			rows_of[group_of[i]].push_back(i);
		}
	}
	std::vector<uint8_t> valid;
	ByteBuffer fixed;
	std::vector<StringRef> strings;
	for (size_t lg = 0; lg < local_groups.size(); lg++) {
		auto &g = groups[local_groups[lg]];
		auto &sel = rows_of[lg];
		g.rows += sel.size();
		for (size_t v = 0; v < values.size(); v++) {
			auto &col = *values[v];
			auto &type = value_types[v];
			auto width = type.ByteWidth();
			valid.resize(sel.size());
			ColumnInput in;
			in.type = type;
			in.count = sel.size();
			in.valid = valid.data();
			if (width) {
				fixed.resize(sel.size() * width);
				in.fixed = fixed.data();
			} else {
				strings.resize(sel.size());
				in.strings = strings.data();
			}
			for (size_t j = 0; j < sel.size(); j++) {
				auto i = sel[j];
				valid[j] = RowValid(col, i);
				if (!valid[j]) {
					if (width) {
						std::memset(fixed.data() + j * width, 0, width);
					} else {
						strings[j] = StringRef {"", 0};
					}
				} else if (width) {
					std::memcpy(fixed.data() + j * width, col.Fixed() + i * width, width);
				} else {
					strings[j] = col.StringAt(i);
				}
			}
			g.values[v].AddStats(ComputeStats(in, false));
		}
	}
}

} // namespace compute
} // namespace vtx
