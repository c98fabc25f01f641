#include "vortex_scan.hpp"

#include "../compute/aggregate_state.hpp"
#include "../format/reader.hpp"
#include "column_emit.hpp"
#include "file_io.hpp"
#include "metadata_cache.hpp"
#include "plan_guard.hpp"
#include "scan_bind_data.hpp"
#include "type_mapping.hpp"
#include "zone_filter.hpp"
#include "duckdb/common/hive_partitioning.hpp"
#include "duckdb/common/multi_file/multi_file_reader.hpp"
#include "duckdb/execution/partition_info.hpp"
#include "duckdb/planner/operator/logical_get.hpp"

#include <atomic>

namespace vortex {

using namespace duckdb;

// ---- bind data ----------------------------------------------------------------------

unique_ptr<FunctionData> ScanBindData::Copy() const {
	auto r = make_uniq<ScanBindData>();
	r->files = files;
	r->fields = fields;
	r->types = types;
	r->filename_column = filename_column;
	r->hive = hive;
	r->total_rows = total_rows;
	r->predicates = predicates;
	return std::move(r);
}

bool ScanBindData::Equals(const FunctionData &other_p) const {
	auto &o = other_p.Cast<ScanBindData>();
	if (files.size() != o.files.size() || filename_column != o.filename_column || types != o.types ||
	    hive.keys != o.hive.keys || hive.types != o.hive.types || hive.values != o.hive.values ||
	    predicates.size() != o.predicates.size()) {
		return false;
	}
	for (size_t i = 0; i < fields.size(); i++) {
		if (fields[i].name != o.fields[i].name || fields[i].type != o.fields[i].type) {
			return false;
		}
	}
	for (size_t i = 0; i < files.size(); i++) {
		if (files[i].path != o.files[i].path || !SameFileVersion(*files[i].meta, *o.files[i].meta)) {
			return false;
		}
	}
	for (size_t i = 0; i < predicates.size(); i++) {
		auto &a = predicates[i], &b = o.predicates[i];
		if (a.field != b.field || a.op != b.op || a.constant.type() != b.constant.type() ||
		    !Value::NotDistinctFrom(a.constant, b.constant)) {
			return false;
		}
	}
	return true;
}

namespace {

std::string DescribeSchema(const std::vector<vtx::Field> &fields) {
	std::string s;
	for (auto &f : fields) {
		s += (s.empty() ? "" : ", ") + f.name + " " + f.type.ToString();
	}
	return s;
}

void CheckSameSchema(const std::vector<vtx::Field> &expected, const std::string &expected_file,
                     const vtx::FileMetadata &meta, const std::string &path) {
	bool same = expected.size() == meta.fields.size();
	for (size_t i = 0; same && i < expected.size(); i++) {
		same = expected[i].name == meta.fields[i].name && expected[i].type == meta.fields[i].type;
	}
	if (!same) {
		throw InvalidInputException("vortex: file \"%s\" has schema (%s), which differs from (%s) of \"%s\"", path,
		                            DescribeSchema(meta.fields), DescribeSchema(expected), expected_file);
	}
}

//! The narrowest of BIGINT, DATE, TIMESTAMP that holds every value of a partition key, else VARCHAR.
LogicalType HiveType(ClientContext &context, const std::string &key, const std::vector<std::string> &values) {
	for (auto &candidate : {LogicalType::BIGINT, LogicalType::DATE, LogicalType::TIMESTAMP}) {
		bool fits = true;
		for (auto &v : values) {
			if (StringUtil::CIEquals(v, "NULL") || v.empty()) {
				continue;
			}
			Value out;
			string error;
			if (!Value(HivePartitioning::Unescape(v)).TryCastAs(context, candidate, out, &error, true)) {
				fits = false;
				break;
			}
		}
		if (fits) {
			return candidate;
		}
	}
	return LogicalType::VARCHAR;
}

//! Hive partitions when asked for, or by default when every path has the same `key=value` keys.
void BindHivePartitions(ClientContext &context, optional_ptr<const Value> option, ScanBindData &bind) {
	if (option && !BooleanValue::Get(option->DefaultCastAs(LogicalType::BOOLEAN))) {
		return;
	}
	std::vector<std::map<string, string>> parsed;
	for (auto &f : bind.files) {
		parsed.push_back(HivePartitioning::Parse(f.path));
	}
	bool consistent = !parsed.empty() && !parsed[0].empty();
	for (auto &p : parsed) {
		consistent = consistent && p.size() == parsed[0].size();
		for (auto &kv : parsed[0]) {
			consistent = consistent && p.count(kv.first);
		}
	}
	if (!consistent) {
		if (option) {
			throw InvalidInputException("vortex_scan: hive_partitioning needs every path to have the same key=value "
			                            "directories (first file: \"%s\")", bind.files[0].path);
		}
		return;
	}
	for (auto &kv : parsed[0]) {
		for (auto &field : bind.fields) {
			if (StringUtil::CIEquals(field.name, kv.first)) {
				throw InvalidInputException("vortex_scan: hive partition \"%s\" has the name of a column of \"%s\"",
				                            kv.first, bind.files[0].path);
			}
		}
		std::vector<std::string> values;
		for (auto &p : parsed) {
			values.push_back(p[kv.first]);
		}
		bind.hive.keys.push_back(kv.first);
		bind.hive.types.push_back(HiveType(context, kv.first, values));
	}
	for (auto &p : parsed) {
		vector<Value> row;
		for (idx_t k = 0; k < bind.hive.keys.size(); k++) {
			row.push_back(HivePartitioning::GetValue(context, bind.hive.keys[k], p[bind.hive.keys[k]], bind.hive.types[k]));
		}
		bind.hive.values.push_back(std::move(row));
	}
}

unique_ptr<FunctionData> ScanBind(ClientContext &context, TableFunctionBindInput &input,
                                  vector<LogicalType> &return_types, vector<string> &names) {
	auto result = make_uniq<ScanBindData>();
	optional_ptr<const Value> hive_option;
	for (auto &kv : input.named_parameters) {
		if (kv.first == "filename") {
			result->filename_column = BooleanValue::Get(kv.second.DefaultCastAs(LogicalType::BOOLEAN));
		} else if (kv.first == "hive_partitioning") {
			hive_option = &kv.second;
		}
	}
	auto reader = MultiFileReader::CreateDefault("vortex_scan");
	auto list = reader->CreateFileList(context, input.inputs[0]);
	auto all = list->GetAllFiles();
	for (auto &file : all) {
		auto source = make_uniq<FileSource>(context, file.path);
		auto meta = GetMetadata(*source);
		auto held = all.size() <= kFilesHeldOpen ? std::make_shared<HeldSource>(std::move(source)) : nullptr;
		result->files.push_back(ScanFile {file.path, std::move(meta), std::move(held)});
	}
	if (result->files.empty()) {
		throw InvalidInputException("vortex_scan: no files to read");
	}
	auto &first = result->files[0];
	result->fields = first.meta->fields;
	for (auto &f : result->files) {
		CheckSameSchema(result->fields, first.path, *f.meta, f.path);
		result->total_rows += f.meta->total_rows;
	}
	for (auto &field : result->fields) {
		result->types.push_back(ToLogicalType(field.type));
		return_types.push_back(result->types.back());
		names.push_back(field.name);
	}
	BindHivePartitions(context, hive_option, *result);
	for (idx_t k = 0; k < result->hive.keys.size(); k++) {
		return_types.push_back(result->hive.types[k]);
		names.push_back(result->hive.keys[k]);
	}
	if (result->filename_column) {
		return_types.push_back(LogicalType::VARCHAR);
		names.push_back("filename");
	}
	return std::move(result);
}

// ---- global and local state -----------------------------------------------------------

struct WorkItem {
	idx_t file;
	idx_t zone;
	idx_t batch; //! position among all zones of all files: the scan's order
};

struct ScanGlobalState : public GlobalTableFunctionState {
	vector<column_t> column_ids;
	vector<idx_t> projection_ids;
	std::vector<WorkItem> work;
	std::atomic<idx_t> next {0};
	std::atomic<idx_t> done {0};
	idx_t total_zones = 0;
	//! Footers as validated when the query started (a prepared statement may run long after binding).
	std::vector<std::shared_ptr<const vtx::FileMetadata>> metas;
	//! The handles those footers were read from, kept for scans of few files: every read then
	//! hits the version the footer describes even if the file is replaced meanwhile. Null for
	//! scans of many files, whose threads open files one at a time and check the version.
	std::vector<std::shared_ptr<FileSource>> sources;
	idx_t max_threads = 1;

	idx_t MaxThreads() const override {
		return max_threads;
	}
};

struct ScanLocalState : public LocalTableFunctionState {
	bool active = false;
	unique_ptr<FileSource> source;
	idx_t source_file = 0;
	WorkItem item {0, 0, 0};
	idx_t rows = 0;
	idx_t offset = 0;
	idx_t first_row = 0;
	std::vector<std::shared_ptr<vtx::DecodedColumn>> columns; //! per column id (null for virtual)
	DataChunk scan_chunk; //! all scanned columns, when filter columns are projected out
};

//! A file reopened by path must still be the version whose footer the scan planned with:
//! an atomic replacement in between would otherwise mix one version's footer with another's data.
void CheckSameVersion(FileSource &source, const vtx::FileMetadata &meta) {
	uint8_t trailer[vtx::kTrailerSize];
	uint32_t len = 0, crc = 0;
	if (source.Size() == meta.file_size) {
		source.ReadAt(source.Size() - vtx::kTrailerSize, trailer, vtx::kTrailerSize);
		std::memcpy(&len, trailer, 4);
		std::memcpy(&crc, trailer + 4, 4);
	}
	if (source.Size() != meta.file_size || len != meta.footer_size || crc != meta.footer_crc) {
		throw IOException("vortex: file \"%s\" was replaced while the query was reading it; run the query again",
		                  source.Path());
	}
}

unique_ptr<GlobalTableFunctionState> ScanInitGlobal(ClientContext &context, TableFunctionInitInput &input) {
	auto &bind = input.bind_data->Cast<ScanBindData>();
	auto g = make_uniq<ScanGlobalState>();
	g->column_ids = input.column_ids;
	g->projection_ids = input.projection_ids;
	idx_t batch = 0;
	for (idx_t f = 0; f < bind.files.size(); f++) {
		auto file = OpenPlannedFile(context, bind.files, f, bind.fields, bind.types);
		auto meta = file.meta;
		g->metas.push_back(meta);
		g->sources.push_back(bind.files.size() <= kFilesHeldOpen ? std::shared_ptr<FileSource>(std::move(file.source))
		                                                         : nullptr);
		for (idx_t z = 0; z < meta->zones.size(); z++, batch++) {
			auto &zone = meta->zones[z];
			bool excluded = zone.rows == 0;
			for (auto &p : bind.predicates) {
				if (excluded) {
					break;
				}
				excluded = ZoneExcluded(p, zone.chunks[p.field].stats, bind.types[p.field]);
			}
			if (!excluded) {
				g->work.push_back(WorkItem {f, z, batch});
			}
		}
	}
	g->total_zones = batch;
	g->max_threads = std::max<idx_t>(1, std::min<idx_t>(g->work.size(), TaskScheduler::GetScheduler(context).NumberOfThreads()));
	return std::move(g);
}

unique_ptr<LocalTableFunctionState> ScanInitLocal(ExecutionContext &context, TableFunctionInitInput &input,
                                                  GlobalTableFunctionState *gstate) {
	auto l = make_uniq<ScanLocalState>();
	auto &g = gstate->Cast<ScanGlobalState>();
	auto &bind = input.bind_data->Cast<ScanBindData>();
	if (!g.projection_ids.empty() && g.projection_ids.size() < g.column_ids.size()) {
		vector<LogicalType> types;
		for (auto id : g.column_ids) {
			types.push_back(id < bind.fields.size()                                 ? bind.types[id]
			                : bind.IsHiveColumn(id)                                  ? bind.hive.types[id - bind.fields.size()]
			                : id == bind.FilenameIndex() && bind.filename_column ? LogicalType::VARCHAR
			                                                                     : LogicalType::BIGINT);
		}
		l->scan_chunk.Initialize(Allocator::Get(context.client), types);
	}
	return std::move(l);
}

bool NextZone(ClientContext &context, const ScanBindData &bind, ScanGlobalState &g, ScanLocalState &l) {
	auto idx = g.next.fetch_add(1);
	if (idx >= g.work.size()) {
		l.active = false;
		return false;
	}
	l.item = g.work[idx];
	auto &meta = *g.metas[l.item.file];
	FileSource *source = g.sources[l.item.file].get();
	if (!source) {
		// One open file per thread at a time, however many files the scan covers.
		if (!l.source || l.source_file != l.item.file) {
			l.source = make_uniq<FileSource>(context, bind.files[l.item.file].path);
			l.source_file = l.item.file;
			CheckSameVersion(*l.source, meta);
		}
		source = l.source.get();
	}
	auto &zone = meta.zones[l.item.zone];
	l.rows = zone.rows;
	l.first_row = zone.first_row;
	l.offset = 0;
	l.columns.assign(g.column_ids.size(), nullptr);
	for (idx_t c = 0; c < g.column_ids.size(); c++) {
		auto id = g.column_ids[c];
		if (id >= bind.fields.size()) {
			continue;
		}
		auto chunk = std::make_shared<vtx::DecodedColumn>();
		try {
			vtx::ReadChunk(*source, meta, l.item.zone, id, *chunk);
		} catch (vtx::FormatError &e) {
			ThrowFileError(bind.files[l.item.file].path, e);
		}
		l.columns[c] = std::move(chunk);
	}
	l.active = true;
	return true;
}

void ScanFunction(ClientContext &context, TableFunctionInput &data, DataChunk &output) {
	auto &bind = data.bind_data->Cast<ScanBindData>();
	auto &g = data.global_state->Cast<ScanGlobalState>();
	auto &l = data.local_state->Cast<ScanLocalState>();
	while (!l.active || l.offset >= l.rows) {
		if (l.active) {
			g.done++;
		}
		if (!NextZone(context, bind, g, l)) {
			return;
		}
	}
	const idx_t count = std::min<idx_t>(STANDARD_VECTOR_SIZE, l.rows - l.offset);
	DataChunk &target = l.scan_chunk.ColumnCount() ? l.scan_chunk : output;
	target.Reset();
	for (idx_t c = 0; c < g.column_ids.size(); c++) {
		auto id = g.column_ids[c];
		auto &vec = target.data[c];
		if (id < bind.fields.size()) {
			EmitColumn(*l.columns[c], l.columns[c], l.offset, count, bind.fields[id].type.ByteWidth(), vec);
		} else if (bind.IsHiveColumn(id)) {
			vec.Reference(bind.hive.values[l.item.file][id - bind.fields.size()]);
		} else if (bind.filename_column && id == bind.FilenameIndex()) {
			vec.Reference(Value(bind.files[l.item.file].path));
		} else if (id == COLUMN_IDENTIFIER_ROW_ID && vec.GetType() == LogicalType::BIGINT) {
			auto rows = FlatVector::GetData<int64_t>(vec);
			for (idx_t i = 0; i < count; i++) {
				rows[i] = static_cast<int64_t>(l.first_row + l.offset + i);
			}
		} else {
			vec.SetVectorType(VectorType::CONSTANT_VECTOR);
			ConstantVector::SetNull(vec, true);
		}
	}
	target.SetCardinality(count);
	if (&target != &output) {
		output.ReferenceColumns(target, g.projection_ids);
	}
	l.offset += count;
}

OperatorPartitionData ScanPartitionData(ClientContext &, TableFunctionGetPartitionInput &input) {
	auto &l = input.local_state->Cast<ScanLocalState>();
	return OperatorPartitionData(l.item.batch);
}

double ScanProgress(ClientContext &, const FunctionData *, const GlobalTableFunctionState *gstate) {
	auto &g = gstate->Cast<ScanGlobalState>();
	if (g.work.empty()) {
		return 100.0;
	}
	return 100.0 * static_cast<double>(std::min<idx_t>(g.done.load(), g.work.size())) / static_cast<double>(g.work.size());
}

unique_ptr<NodeStatistics> ScanCardinality(ClientContext &, const FunctionData *bind_data) {
	auto &bind = bind_data->Cast<ScanBindData>();
	return make_uniq<NodeStatistics>(bind.total_rows, bind.total_rows);
}

// Exact bounds over all files: lets DuckDB prove, e.g., that a sum cannot overflow.
unique_ptr<BaseStatistics> ScanStatistics(ClientContext &, const FunctionData *bind_data, column_t column_index) {
	auto &bind = bind_data->Cast<ScanBindData>();
	if (column_index >= bind.fields.size()) {
		return nullptr;
	}
	auto &type = bind.types[column_index];
	auto env = PlannedEnvelope(bind.files, bind.fields[column_index], type, column_index);
	if (!env.known) {
		return nullptr;
	}
	auto stats = NumericStats::CreateEmpty(type);
	NumericStats::SetMin(stats, RawToValue(type, env.min));
	NumericStats::SetMax(stats, RawToValue(type, env.max));
	if (env.has_null) {
		stats.SetHasNull();
	}
	stats.SetHasNoNull();
	return stats.ToUnique();
}

void ScanComplexFilter(ClientContext &, LogicalGet &get, FunctionData *bind_data,
                       vector<unique_ptr<Expression>> &filters) {
	auto &bind = bind_data->Cast<ScanBindData>();
	bind.predicates.clear();
	for (auto &f : filters) {
		CollectZonePredicates(get, *f, bind);
	}
}

InsertionOrderPreservingMap<string> ScanToString(TableFunctionToStringInput &input) {
	InsertionOrderPreservingMap<string> result;
	auto &bind = input.bind_data->Cast<ScanBindData>();
	result["Files"] = std::to_string(bind.files.size());
	idx_t zones = 0;
	for (auto &f : bind.files) {
		zones += f.meta->zones.size();
	}
	result["Zones"] = std::to_string(zones);
	if (!bind.predicates.empty()) {
		string s;
		for (auto &p : bind.predicates) {
			s += (s.empty() ? "" : "\n") + p.ToString(bind.fields[p.field].name);
		}
		result["Zone Filters"] = s;
	}
	return result;
}

InsertionOrderPreservingMap<string> ScanDynamicToString(TableFunctionDynamicToStringInput &input) {
	InsertionOrderPreservingMap<string> result;
	if (input.global_state) {
		auto &g = input.global_state->Cast<ScanGlobalState>();
		result["Zones Scanned"] = std::to_string(g.work.size()) + "/" + std::to_string(g.total_zones);
	}
	return result;
}

} // namespace

TableFunction GetVortexScanFunction() {
	TableFunction tf("vortex_scan", {LogicalType::VARCHAR}, ScanFunction, ScanBind, ScanInitGlobal, ScanInitLocal);
	tf.named_parameters["filename"] = LogicalType::BOOLEAN;
	tf.named_parameters["hive_partitioning"] = LogicalType::BOOLEAN;
	tf.projection_pushdown = true;
	tf.filter_pushdown = false;
	tf.filter_prune = true;
	tf.pushdown_complex_filter = ScanComplexFilter;
	tf.cardinality = ScanCardinality;
	tf.statistics = ScanStatistics;
	tf.get_partition_data = ScanPartitionData;
	tf.table_scan_progress = ScanProgress;
	tf.to_string = ScanToString;
	tf.dynamic_to_string = ScanDynamicToString;
	return tf;
}

TableFunctionSet GetVortexScanFunctions() {
	TableFunctionSet set("vortex_scan");
	set.AddFunction(GetVortexScanFunction());
	auto list = GetVortexScanFunction();
	list.arguments = {LogicalType::LIST(LogicalType::VARCHAR)};
	set.AddFunction(list);
	return set;
}

} // namespace vortex
