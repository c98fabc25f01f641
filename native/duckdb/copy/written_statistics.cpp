#include "written_statistics.hpp"

#include "../type_mapping.hpp"
#include "duckdb/parser/keyword_helper.hpp"

namespace vortex {

using namespace duckdb;

namespace {

uint64_t StoredBytes(const vtx::ChunkMeta &chunk) {
	uint64_t n = chunk.stored_size;
	for (auto &child : chunk.children) {
		n += StoredBytes(child);
	}
	return n;
}

//! A column of the report: a top-level column, or a leaf of a nested one, named by its path as
//! Parquet names its leaf columns ("s"."a", "l"."element", "m"."key").
struct Leaf {
	string name;
	const vtx::ColumnType *type;
	size_t field;
	std::vector<size_t> route; //! child indexes from the column's chunk
	bool first;                //! the first leaf of its column: its nested nodes' own streams count here
	//! Under a LIST, MAP or ARRAY: Parquet counts a NULL and a value for every empty or NULL list
	//! too, which the zones' statistics cannot tell, so no counts are given (as DuckDB 1.4's
	//! Parquet writer gives none there).
	bool repeated;
};

void AddLeaves(const string &name, const vtx::ColumnType &type, size_t field, std::vector<size_t> &route, bool first,
               bool repeated, std::vector<Leaf> &out) {
	auto &children = type.Children();
	if (children.empty()) {
		out.push_back(Leaf {name, &type, field, route, first, repeated});
		return;
	}
	repeated = repeated || type.id == vtx::TypeId::LIST || type.id == vtx::TypeId::MAP || type.id == vtx::TypeId::ARRAY;
	for (size_t i = 0; i < children.size(); i++) {
		route.push_back(i);
		const auto step = type.IsUnnamedStruct() ? type.ChildPath(i) : "." + KeywordHelper::WriteQuoted(children[i].name, '"');
		AddLeaves(name + step, children[i].type, field, route,
		          first && i == 0, repeated, out);
		route.pop_back();
	}
}

//! The leaf's chunk in a zone's chunk of its column; `node_bytes` adds up the nested nodes' own
//! streams (validity, lengths, tags) on the way.
const vtx::ChunkMeta &LeafChunk(const vtx::ChunkMeta &column, const std::vector<size_t> &route, uint64_t &node_bytes) {
	const vtx::ChunkMeta *node = &column;
	for (auto i : route) {
		node_bytes += node->stored_size;
		node = &node->children[i];
	}
	return *node;
}

} // namespace

void FillWrittenStatistics(const vtx::FileMetadata &meta, uint64_t file_size, CopyFunctionFileStatistics &out) {
	out.row_count = 0;
	for (auto &zone : meta.zones) {
		out.row_count += zone.rows;
	}
	out.file_size_bytes = file_size;
	out.footer_size_bytes = Value::UBIGINT(meta.footer_size);
	std::vector<Leaf> leaves;
	for (size_t c = 0; c < meta.fields.size(); c++) {
		std::vector<size_t> route;
		AddLeaves(KeywordHelper::WriteQuoted(meta.fields[c].name, '"'), meta.fields[c].type, c, route, true, false,
		          leaves);
	}
	for (auto &leaf : leaves) {
		auto &type = *leaf.type;
		const auto logical = ToLogicalType(type);
		case_insensitive_map_t<Value> stats;
		uint64_t bytes = 0, nulls = 0, nans = 0, values = 0;
		// Min and max only where every zone that holds a value keeps them exactly (string zones
		// keep truncated bounds past a length); compared as DuckDB orders the column's type.
		bool exact = true;
		Value min, max;
		for (auto &zone : meta.zones) {
			uint64_t node_bytes = 0;
			auto &chunk = LeafChunk(zone.chunks[leaf.field], leaf.route, node_bytes);
			bytes += StoredBytes(chunk) + (leaf.first ? node_bytes : 0);
			nulls += chunk.stats.nulls;
			values += chunk.stats.rows;
			nans += chunk.stats.nans;
			if (!exact || chunk.stats.NonNull() == chunk.stats.nans) {
				continue; // no value to bound (all NULL or NaN)
			}
			if (!chunk.stats.has_minmax || !chunk.stats.minmax_exact) {
				exact = false;
				continue;
			}
			auto lo = RawToValue(logical, chunk.stats.min), hi = RawToValue(logical, chunk.stats.max);
			if (min.IsNull() || lo < min) {
				min = lo;
			}
			if (max.IsNull() || hi > max) {
				max = hi;
			}
		}
		stats["column_size_bytes"] = Value::UBIGINT(bytes);
		if (exact && !min.IsNull()) {
			stats["min"] = Value(min.ToString());
			stats["max"] = Value(max.ToString());
		}
		if (!leaf.repeated) {
			stats["null_count"] = Value::UBIGINT(nulls);
			stats["num_values"] = Value::UBIGINT(values); // NULLs included, as DuckDB 1.5's Parquet writer counts
		}
		if (type.Kind() == vtx::PhysicalKind::FLOAT) {
			stats["has_nan"] = Value::BOOLEAN(nans > 0);
		}
		out.column_statistics.emplace(leaf.name, std::move(stats));
	}
}

} // namespace vortex
