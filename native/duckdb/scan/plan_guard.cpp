#include "plan_guard.hpp"

#include "../../compute/aggregate_state.hpp"
#include "../file_tasks.hpp"
#include "../metadata_cache.hpp"

#include <algorithm>

namespace vortex {

using namespace duckdb;

bool ReportsNumericStats(const LogicalType &type) {
	switch (type.id()) {
	case LogicalTypeId::BOOLEAN:
	case LogicalTypeId::TINYINT:
	case LogicalTypeId::SMALLINT:
	case LogicalTypeId::INTEGER:
	case LogicalTypeId::BIGINT:
	case LogicalTypeId::HUGEINT:
	case LogicalTypeId::UTINYINT:
	case LogicalTypeId::USMALLINT:
	case LogicalTypeId::UINTEGER:
	case LogicalTypeId::UBIGINT:
	case LogicalTypeId::DECIMAL:
	case LogicalTypeId::DATE:
	case LogicalTypeId::TIMESTAMP:
	case LogicalTypeId::TIMESTAMP_TZ:
		return true;
	default:
		return false;
	}
}

bool ReportsStringStats(const LogicalType &type) {
	return type.id() == LogicalTypeId::VARCHAR;
}

namespace {

//! Widens a VARCHAR `env` by one file's zones, from their distinct values: exact where min/max
//! statistics may be cut short, and the only place a zone's longest value is known. False when a
//! zone with values does not list them.
bool WidenStrings(ColumnEnvelope &env, const vtx::FileMetadata &meta, idx_t column) {
	for (auto &z : meta.zones) {
		auto &s = z.chunks[column].stats;
		env.has_null |= s.nulls > 0;
		if (s.NonNull() == 0) {
			continue;
		}
		if (!s.has_distinct || s.distinct.empty()) {
			return false;
		}
		for (auto &v : s.distinct) {
			// Bytewise, as DuckDB orders VARCHAR (std::string compares as unsigned bytes).
			if (!env.has_value || v < env.min) {
				env.min = v;
			}
			if (!env.has_value || v > env.max) {
				env.max = v;
			}
			env.has_value = true;
			env.max_length = std::max<uint32_t>(env.max_length, static_cast<uint32_t>(v.size()));
			for (unsigned char c : v) {
				env.unicode |= c >= 0x80;
			}
		}
	}
	return true;
}

//! Widens `env` by one file's zones; false when a zone with values has no min/max.
bool Widen(ColumnEnvelope &env, const vtx::FileMetadata &meta, const vtx::ColumnType &ctype, idx_t column) {
	for (auto &z : meta.zones) {
		auto &s = z.chunks[column].stats;
		env.has_null |= s.nulls > 0;
		if (s.NonNull() == 0) {
			continue;
		}
		if (!s.has_minmax) {
			return false;
		}
		// Compared as raw bytes: a Value per zone would cost more than the rest of planning.
		if (!env.has_value || vtx::compute::CompareValues(ctype, s.min, env.min) < 0) {
			env.min = s.min;
		}
		if (!env.has_value || vtx::compute::CompareValues(ctype, s.max, env.max) > 0) {
			env.max = s.max;
		}
		env.has_value = true;
	}
	return true;
}

[[noreturn]] void ThrowChanged(const std::string &path, const std::string &what) {
	throw IOException("vortex: file \"%s\" was replaced after the query was planned and %s; run the query again",
	                  path, what);
}

} // namespace

ColumnEnvelope PlannedEnvelope(const std::vector<ScanFile> &files, const vtx::Field &field, const LogicalType &type,
                               idx_t column) {
	ColumnEnvelope env;
	const bool strings = ReportsStringStats(type);
	if (!ReportsNumericStats(type) && !strings) {
		return env;
	}
	for (auto &f : files) {
		if (!(strings ? WidenStrings(env, *f.meta, column) : Widen(env, *f.meta, field.type, column))) {
			return ColumnEnvelope();
		}
	}
	// A VARCHAR column of NULLs alone is known too: DuckDB keeps empty statistics for it.
	env.known = env.has_value || (strings && !files.empty());
	return env;
}

bool SameFileVersion(const vtx::FileMetadata &planned, const vtx::FileMetadata &now) {
	return &planned == &now || (planned.file_size == now.file_size && planned.footer_size == now.footer_size &&
	                            planned.footer_crc == now.footer_crc);
}

bool SamePlannedFiles(const std::vector<ScanFile> &a, const std::vector<ScanFile> &b) {
	if (a.size() != b.size()) {
		return false;
	}
	for (size_t i = 0; i < a.size(); i++) {
		if (a[i].path != b[i].path || !SameFileVersion(*a[i].meta, *b[i].meta)) {
			return false;
		}
	}
	return true;
}

void CheckFitsPlan(const std::vector<ScanFile> &planned, idx_t file, const std::vector<vtx::Field> &fields,
                   const vector<LogicalType> &types, const vtx::FileMetadata &now) {
	auto &path = planned[file].path;
	if (SameFileVersion(*planned[file].meta, now)) {
		return;
	}
	bool same_schema = now.fields.size() == fields.size();
	for (idx_t i = 0; same_schema && i < fields.size(); i++) {
		same_schema = now.fields[i].name == fields[i].name && now.fields[i].type == fields[i].type;
	}
	if (!same_schema) {
		ThrowChanged(path, "its schema changed");
	}
	// The planner was told at most this many rows (max_cardinality): it bounds sums with it.
	if (now.total_rows > planned[file].meta->total_rows) {
		ThrowChanged(path, "has more rows than it was planned with");
	}
	for (idx_t c = 0; c < fields.size(); c++) {
		auto env = PlannedEnvelope(planned, fields[c], types[c], c);
		if (!env.known) {
			continue;
		}
		ColumnEnvelope fresh;
		const bool strings = ReportsStringStats(types[c]);
		bool fits = (strings ? WidenStrings(fresh, now, c) : Widen(fresh, now, fields[c].type, c)) &&
		            (env.has_null || !fresh.has_null);
		if (fits && fresh.has_value && strings) {
			fits = env.has_value && fresh.min >= env.min && fresh.max <= env.max && fresh.max_length <= env.max_length &&
			       (env.unicode || !fresh.unicode);
		} else if (fits && fresh.has_value) {
			fits = vtx::compute::CompareValues(fields[c].type, fresh.min, env.min) >= 0 &&
			       vtx::compute::CompareValues(fields[c].type, fresh.max, env.max) <= 0;
		}
		if (!fits) {
			ThrowChanged(path, "column \"" + fields[c].name + "\" no longer fits the statistics it was planned with");
		}
	}
}

PlannedFile OpenPlannedFile(ClientContext &context, const std::vector<ScanFile> &planned, idx_t file,
                            const std::vector<vtx::Field> &fields, const vector<LogicalType> &types) {
	PlannedFile result;
	if (planned[file].held) {
		result.source = planned[file].held->Take();
	}
	if (result.source) {
		result.meta = planned[file].meta;
		return result;
	}
	result.source = make_uniq<FileSource>(context, planned[file].Info());
	result.meta = GetMetadata(*result.source);
	CheckFitsPlan(planned, file, fields, types, *result.meta);
	return result;
}

std::vector<PlannedFile> OpenPlannedFiles(ClientContext &context, const std::vector<ScanFile> &planned,
                                          const std::vector<vtx::Field> &fields, const vector<LogicalType> &types) {
	std::vector<PlannedFile> files(planned.size());
	ForEachFile(context, planned.size(),
	            [&](idx_t f) { files[f] = OpenPlannedFile(context, planned, f, fields, types); });
	return files;
}

} // namespace vortex
