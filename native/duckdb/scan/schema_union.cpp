#include "schema_union.hpp"

#include "../metadata_cache.hpp"
#include "../type_mapping.hpp"
#include "../column_emit.hpp"
#include "plan_guard.hpp"
#include "duckdb/common/multi_file/union_by_name.hpp"
#include "duckdb/common/vector_operations/vector_operations.hpp"
#include "duckdb/common/error_data.hpp"

namespace vortex {

using namespace duckdb;

namespace {

std::string Names(const std::vector<vtx::Field> &fields) {
	std::string s;
	for (auto &f : fields) {
		s += (s.empty() ? "" : ", ") + f.name;
	}
	return s;
}

//! Maps the scan's columns onto `file`'s fields by name (case-insensitively, as DuckDB).
std::vector<idx_t> MapByName(const vector<string> &names, const vtx::FileMetadata &file) {
	case_insensitive_map_t<idx_t> position;
	for (idx_t i = 0; i < file.fields.size(); i++) {
		position.emplace(file.fields[i].name, i);
	}
	std::vector<idx_t> map;
	for (auto &name : names) {
		auto it = position.find(name);
		map.push_back(it == position.end() ? kMissingField : it->second);
	}
	return map;
}

} // namespace

void UnifySchemas(const string &fn, ScanBindData &bind) {
	auto &first = *bind.files[0].meta;
	vector<string> names;
	vector<LogicalType> types;
	if (bind.union_by_name) {
		case_insensitive_map_t<idx_t> seen;
		for (auto &f : bind.files) {
			vector<string> file_names;
			vector<LogicalType> file_types;
			for (auto &field : f.meta->fields) {
				file_names.push_back(field.name);
				file_types.push_back(ToLogicalType(field.type));
			}
			UnionByName::CombineUnionTypes(file_names, file_types, types, names, seen);
		}
	} else {
		for (auto &field : first.fields) {
			names.push_back(field.name);
			types.push_back(ToLogicalType(field.type));
		}
	}
	bind.fields.clear();
	bind.types = types;
	bind.uniform = true;
	for (auto &f : bind.files) {
		f.field_map = MapByName(names, *f.meta);
	}
	for (idx_t c = 0; c < names.size(); c++) {
		// The column's stored type: that of the first file holding it at the scan's type.
		const vtx::Field *stored = nullptr;
		for (auto &f : bind.files) {
			auto at = f.field_map[c];
			if (at == kMissingField) {
				if (!bind.union_by_name) {
					throw InvalidInputException(
					    "vortex: failed to read file \"%s\": schema mismatch in glob: column \"%s\" was read from the "
					    "original file \"%s\", but could not be found in file \"%s\" (columns: %s). To read files with "
					    "different schemas, set union_by_name := true",
					    f.path, names[c], bind.files[0].path, f.path, Names(f.meta->fields));
				}
				bind.uniform = false;
				continue;
			}
			auto &field = f.meta->fields[at];
			const auto file_type = ToLogicalType(field.type);
			if (at != c || !(file_type == types[c])) {
				bind.uniform = false;
			}
			if (!(file_type == types[c]) && (field.type.IsNested() || types[c].IsNested())) {
				// Struct fields matched by name and cast per file would need a per-file cast of
				// each child stream; refused with the file named instead.
				throw BinderException(
				    "%s: column \"%s\" is %s in \"%s\" but %s across the files: files whose nested columns "
				    "differ in type are not combined (columns of other types are widened or cast as read_parquet does)",
				    fn, names[c], file_type.ToString(), f.path, types[c].ToString());
			}
			if (!stored && file_type == types[c]) {
				stored = &field;
			}
		}
		vtx::Field field;
		field.name = names[c];
		if (stored) {
			field.type = stored->type;
		} else if (!ToColumnType(types[c], field.type)) {
			throw BinderException("%s: column \"%s\" would be of type %s across the files, which %s cannot return",
			                      fn, names[c], types[c].ToString(), fn);
		}
		bind.fields.push_back(std::move(field));
	}
	for (auto &f : bind.files) {
		if (bind.uniform) {
			f.field_map.clear(); // every column at its own position: the plain path
		}
	}
}

void EmitFileColumn(ClientContext &context, const ScanBindData &bind, idx_t file, idx_t column,
                    const vtx::DecodedColumn &chunk, const std::shared_ptr<vtx::DecodedColumn> &owner, idx_t offset,
                    idx_t count, Vector &out) {
	auto &stored = bind.files[file].meta->fields[bind.FileField(file, column)].type;
	const auto file_type = ToLogicalType(stored);
	if (file_type == out.GetType()) {
		EmitColumn(chunk, owner, offset, count, stored, out);
		return;
	}
	Vector decoded(file_type, count);
	EmitColumn(chunk, owner, offset, count, stored, decoded);
	try {
		VectorOperations::Cast(context, decoded, out, count);
	} catch (std::exception &e) {
		// DuckDB's cast error alone names neither the file nor the column (read_parquet names both).
		ErrorData error(e);
		if (error.Type() != ExceptionType::CONVERSION && error.Type() != ExceptionType::INVALID_INPUT &&
		    error.Type() != ExceptionType::OUT_OF_RANGE) {
			throw;
		}
		throw ConversionException("vortex_scan: cannot cast column \"%s\" of \"%s\" from %s to %s: %s",
		                          bind.fields[column].name, bind.files[file].path, file_type.ToString(),
		                          out.GetType().ToString(), error.RawMessage());
	}
}

UnionFile OpenUnionFile(ClientContext &context, const std::vector<ScanFile> &planned, idx_t file) {
	UnionFile result;
	if (planned[file].held) {
		result.source = planned[file].held->Take();
	}
	if (result.source) {
		result.meta = planned[file].meta;
		return result;
	}
	auto &path = planned[file].path;
	result.source = make_uniq<FileSource>(context, planned[file].Info());
	result.meta = GetMetadata(*result.source);
	auto &was = *planned[file].meta;
	if (SameFileVersion(was, *result.meta)) {
		return result;
	}
	// No statistics were reported for this scan: only its columns (mapped per file at bind time)
	// and its cardinality (an upper bound) were planned with.
	bool same_schema = result.meta->fields.size() == was.fields.size();
	for (idx_t i = 0; same_schema && i < was.fields.size(); i++) {
		same_schema = result.meta->fields[i].name == was.fields[i].name && result.meta->fields[i].type == was.fields[i].type;
	}
	if (!same_schema || result.meta->total_rows > was.total_rows) {
		throw IOException("vortex: file \"%s\" was replaced after the query was planned and %s; run the query again", path,
		                  same_schema ? "has more rows than it was planned with" : "its schema changed");
	}
	return result;
}

} // namespace vortex
