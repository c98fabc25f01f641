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

} // namespace

void FillWrittenStatistics(const vtx::FileMetadata &meta, uint64_t file_size, CopyFunctionFileStatistics &out) {
	out.row_count = 0;
	for (auto &zone : meta.zones) {
		out.row_count += zone.rows;
	}
	out.file_size_bytes = file_size;
	out.footer_size_bytes = Value::UBIGINT(meta.footer_size);
	for (idx_t c = 0; c < meta.fields.size(); c++) {
		auto &type = meta.fields[c].type;
		const auto logical = ToLogicalType(type);
		case_insensitive_map_t<Value> stats;
		uint64_t bytes = 0, nulls = 0, nans = 0, values = 0;
		// Min and max only where every zone that holds a value keeps them exactly (string zones
		// keep truncated bounds past a length); compared as DuckDB orders the column's type.
		bool exact = !type.IsNested();
		Value min, max;
		for (auto &zone : meta.zones) {
			auto &chunk = zone.chunks[c];
			bytes += StoredBytes(chunk);
			nulls += chunk.stats.nulls;
			values += zone.rows;
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
		stats["null_count"] = Value::UBIGINT(nulls);
		stats["num_values"] = Value::UBIGINT(values); // NULLs included, as DuckDB 1.5's Parquet writer counts
		if (type.Kind() == vtx::PhysicalKind::FLOAT) {
			stats["has_nan"] = Value::BOOLEAN(nans > 0);
		}
		out.column_statistics.emplace(KeywordHelper::WriteQuoted(meta.fields[c].name, '"'), std::move(stats));
	}
}

} // namespace vortex
