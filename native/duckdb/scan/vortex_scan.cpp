#include "vortex_scan.hpp"

#include "../../compute/aggregate_state.hpp"
#include "../../compute/selection.hpp"
#include "../../compute/zone_mask.hpp"
#include "decode_pool.hpp"
#include "../../format/encodings/encoding.hpp"
#include "../../format/file/prefetch.hpp"
#include "../../format/file/reader.hpp"
#include "../column_emit.hpp"
#include "../duckdb_compat.hpp"
#include "../file_io.hpp"
#include "../file_tasks.hpp"
#include "../metadata_cache.hpp"
#include "../zone_fetch.hpp"
#include "plan_guard.hpp"
#include "scan_bind_data.hpp"
#include "../type_mapping.hpp"
#include "duckdb/planner/filter/conjunction_filter.hpp"
#include "duckdb/planner/filter/struct_filter.hpp"
#include "scan_bind.hpp"
#include "schema_union.hpp"
#include "scan_filters.hpp"
#include "scan_serialization.hpp"
#include "scan_statistics.hpp"
#include "duckdb/common/hive_partitioning.hpp"
#include "duckdb/common/multi_file/multi_file_reader.hpp"
#include "duckdb/execution/partition_info.hpp"
#include "duckdb/planner/operator/logical_get.hpp"
#include "duckdb/planner/table_filter_state.hpp"
#include "duckdb/planner/expression/bound_columnref_expression.hpp"
#include "duckdb/planner/expression/bound_operator_expression.hpp"
#include "duckdb/storage/table/column_segment.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>

namespace vortex {

using namespace duckdb;

namespace {

// ---- global and local state -----------------------------------------------------------

struct WorkItem {
	idx_t file;
	idx_t zone;
	idx_t batch; //! position among all zones of all files: the scan's order
};

//! A pushed filter on a file column, for the compute layer.
struct ColumnFilter {
	idx_t position; //! in column_ids
	idx_t field;
	const TableFilter *filter;
	vtx::compute::Predicate predicate; //! as translated at init; dynamic ones are translated per zone
	bool dynamic = false;
	vtx::compute::Predicate rows; //! what rows of a zone it straddles must satisfy (FilterUse::ROWS)
};

//! A filter on a field of a STRUCT column (DuckDB's StructFilter, at any depth): zones whose
//! field statistics prove that no row matches are skipped; the filter itself stays a residual
//! one, evaluated by DuckDB on the rows of the other zones. The field's stream stores it NULL
//! wherever a struct above is NULL, so its statistics are those of `s.a` itself.
struct StructFieldPrune {
	idx_t field;
	std::vector<size_t> route;
	vtx::ColumnType type; //! the field's
	vtx::compute::Predicate predicate;
};

struct ResidualFilter {
	idx_t position;
	const TableFilter *filter;
};

struct ScanGlobalState : public GlobalTableFunctionState {
	vector<column_t> column_ids;
	//! Per position: the fields of a STRUCT column the query reads (DuckDB's projection hints);
	//! null where the whole column is read.
	std::vector<std::unique_ptr<vtx::StreamSelection>> selections;
	std::vector<StructFieldPrune> struct_prunes;
	vector<idx_t> projection_ids;
	std::vector<WorkItem> work;
	std::atomic<idx_t> next {0};
	std::atomic<idx_t> done {0};
	idx_t total_zones = 0;
	//! Footers as validated when the query started (a prepared statement may run long after binding).
	std::vector<std::shared_ptr<const vtx::FileMetadata>> metas;
	//! The handles those footers were read from, kept for scans of few files: every read then
	//! hits the version the footer describes even if the file is replaced meanwhile. Null for
	//! scans of many files, whose threads open files one at a time (sharing each, open_files below)
	//! and check the version.
	std::vector<std::shared_ptr<FileSource>> sources;
	//! Scans of many files: the handle each file is being read through while a thread reads one of
	//! its zones. Threads reading zones of the same file share it (one open and one version check
	//! per file rather than per thread); it closes when the last of them moves on, so no more files
	//! are open than threads.
	struct SharedFile {
		std::mutex lock; //! held while the file is opened: the threads arriving meanwhile wait for it
		std::weak_ptr<FileSource> source;
	};
	std::unique_ptr<SharedFile[]> open_files;
	idx_t max_threads = 1;
	//! Decoded chunks reused from zone to zone once DuckDB is done with them.
	std::shared_ptr<DecodePool> pool;

	//! The table filters DuckDB pushed into the scan (a copy: dynamic ones share their value).
	unique_ptr<TableFilterSet> filters;
	//! Filters on file columns, evaluated by the compute layer per zone and per row.
	std::vector<ColumnFilter> column_filters;
	//! Filters evaluated by DuckDB on the emitted vectors (shapes the compute layer does not take).
	std::vector<ResidualFilter> residual;
	//! Those of them on row numbers (file_row_number, the row id): zones whose rows they rule out
	//! are skipped, at the start and again when claimed (late materialization's join back).
	std::vector<const TableFilter *> row_filters;
	//! Per column position: whether its values leave the scan (else it is only filtered on).
	std::vector<bool> projected;
	//! Per column: its values may be left packed (DecodedColumn::deferred): handed to DuckDB, filtered
	//! on by column filters, or both (not where an expression filter reads it, nor a struct's fields).
	std::vector<bool> deferrable;
	//! Per work item, per expression filter (bind.expression_filters): how its statistics or
	//! constants classified the zone (ALL or SOME; NONE zones are not in `work`).
	std::vector<vtx::compute::ZoneMatch> expression_matches;
	std::atomic<idx_t> zones_skipped_late {0}; //! of those in `work`, ruled out when claimed (dynamic filters)
	std::atomic<idx_t> zones_filtered {0}; //! decoded and filtered row by row (straddling)
	std::atomic<idx_t> zones_skipped {0};  //! proven empty by statistics, partitions or file names

	idx_t MaxThreads() const override {
		return max_threads;
	}
};

struct ScanLocalState : public LocalTableFunctionState {
	bool active = false;
	std::shared_ptr<FileSource> source;
	idx_t source_file = 0;
	WorkItem item {0, 0, 0};
	idx_t rows = 0;
	idx_t offset = 0;
	idx_t first_row = 0;
	std::vector<std::shared_ptr<vtx::DecodedColumn>> columns; //! per column id (null for virtual or unneeded)
	DataChunk scan_chunk; //! all scanned columns, when filter columns are projected out
	bool filtered = false;        //! the current zone straddles its filters: `mask` selects rows
	//! The current zone's rows its row-number filters keep, one byte a row; empty where they keep all.
	std::vector<uint8_t> row_truth;
	vtx::compute::ZoneMask mask;
	std::vector<vtx::compute::Predicate> predicates; //! per column filter, for the current zone
	std::vector<vtx::compute::Predicate> row_predicates; //! the same, as its straddling rows see it
	std::vector<vtx::compute::ZoneMatch> matches;    //! per column filter, for the current zone
	//! The rows of the current vector that pass, built per vector in this array: DuckDB's
	//! FilterSelection may repoint a SelectionVector at a smaller buffer of its own, so none is
	//! kept from one vector to the next.
	std::vector<sel_t> sel_data = std::vector<sel_t>(STANDARD_VECTOR_SIZE);
	std::vector<unique_ptr<TableFilterState>> residual_states;
	//! Expression filters taken into the scan: this thread's executors, and the file columns
	//! read only for them (not among the scan's columns), by field.
	std::unique_ptr<ExpressionFilterEvaluator> evaluator;
	std::map<idx_t, std::shared_ptr<vtx::DecodedColumn>> filter_columns;
	//! The current zone's column positions to read, and (remote files) their segments.
	std::vector<idx_t> reads;
	std::vector<vtx::ByteRange> segments;
};

//! The zone's columns as expression filters classify them without reading rows.
ZoneColumns ZoneOf(const ScanBindData &bind, const vtx::ZoneMeta &zone, idx_t file) {
	ZoneColumns z;
	z.zone = &zone;
	z.fields = &bind.fields;
	z.types = &bind.types;
	z.file_constant = [&bind, file](idx_t column) {
		Value v;
		FileConstant(bind, column, file, v);
		return v;
	};
	return z;
}

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

//! File `file` of a scan of many files, as the threads reading its zones share it: opened by the
//! first of them (and checked to be the planned version), reused by the others meanwhile.
std::shared_ptr<FileSource> SharedOpen(ClientContext &context, ScanGlobalState &g, const ScanFile &planned, idx_t file,
                                       const vtx::FileMetadata &meta) {
	auto &shared = g.open_files[file];
	// The threads that claim a file's zones together arrive together: they wait for the first one's
	// open (a request on an object store) instead of each making their own.
	std::lock_guard<std::mutex> guard(shared.lock);
	if (auto open = shared.source.lock()) {
		return open;
	}
	auto opened = std::make_shared<FileSource>(context, planned.Info());
	CheckSameVersion(*opened, meta);
	shared.source = opened;
	return opened;
}

//! A StructFilter on scan column `field` as a zone-pruning predicate on the field it reaches.
bool StructPrune(const ScanBindData &bind, idx_t field, const TableFilter &filter, StructFieldPrune &out) {
	out.field = field;
	out.route.clear();
	out.type = bind.fields[field].type;
	LogicalType logical = bind.types[field];
	const TableFilter *f = &filter;
	while (f->filter_type == TableFilterType::STRUCT_EXTRACT) {
		auto &sf = f->Cast<StructFilter>();
		if (out.type.id != vtx::TypeId::STRUCT || logical.id() != LogicalTypeId::STRUCT ||
		    sf.child_idx >= out.type.Children().size() || !sf.child_filter) {
			return false;
		}
		out.route.push_back(sf.child_idx);
		out.type = out.type.Children()[sf.child_idx].type;
		logical = StructType::GetChildType(logical, sf.child_idx);
		f = sf.child_filter.get();
	}
	bool dynamic = false;
	return !out.route.empty() && TranslateFilter(*f, logical, FilterUse::SCAN, out.predicate, dynamic) && !dynamic;
}

//! The StructFilters in `filter` and in the AND conjunctions it is made of, as prunes.
void AddStructPrunes(const ScanBindData &bind, idx_t field, const TableFilter &filter, std::vector<StructFieldPrune> &out) {
	if (filter.filter_type == TableFilterType::CONJUNCTION_AND) {
		for (auto &child : filter.Cast<ConjunctionAndFilter>().child_filters) {
			AddStructPrunes(bind, field, *child, out);
		}
		return;
	}
	StructFieldPrune prune;
	if (StructPrune(bind, field, filter, prune)) {
		out.push_back(std::move(prune));
	}
}

//! The streams of a column of `type` that `index` asks for: the STRUCT fields it names, and
//! below them what their own hints name. False where the hint cannot be followed (read all).
bool SelectFields(const ColumnIndex &index, const vtx::ColumnType &type, vtx::StreamSelection &out) {
	out.all = true;
	out.children.clear();
	if (!index.HasChildren() || type.id != vtx::TypeId::STRUCT) {
		return true;
	}
	auto &fields = type.Children();
	std::vector<vtx::StreamSelection> children(fields.size());
	for (auto &c : children) {
		c.included = false;
	}
	for (auto &child : index.GetChildIndexes()) {
		idx_t position;
		if (!compat::StructChildPosition(child, position) || position >= fields.size() ||
		    !SelectFields(child, fields[position].type, children[position])) {
			return false;
		}
		children[position].included = true;
	}
	out.all = false;
	out.children = std::move(children);
	return true;
}

//! The zone's rows its row-number filters keep (as they stand now); false where they keep none.
bool ZoneRowsKept(const ScanGlobalState &g, const vtx::ZoneMeta &zone, RowRanges &kept) {
	const auto lo = static_cast<int64_t>(zone.first_row), hi = static_cast<int64_t>(zone.first_row + zone.rows);
	kept.assign(1, {lo, hi});
	RowRanges rows;
	for (auto filter : g.row_filters) {
		if (kept.empty()) {
			break;
		}
		if (RowsKept(*filter, lo, hi, rows)) { // every row filter is of a shape RowsKept reads (ScanInitGlobal)
			kept = IntersectRows(kept, rows);
		}
	}
	return !kept.empty();
}

//! Whether the zone's row-number filters keep none of its rows.
bool RowsRuledOut(const ScanGlobalState &g, const vtx::ZoneMeta &zone) {
	RowRanges kept;
	return !g.row_filters.empty() && !ZoneRowsKept(g, zone, kept);
}

unique_ptr<GlobalTableFunctionState> ScanInitGlobal(ClientContext &context, TableFunctionInitInput &input) {
	auto &bind = input.bind_data->Cast<ScanBindData>();
	auto g = make_uniq<ScanGlobalState>();
	g->column_ids = input.column_ids;
	g->selections.resize(g->column_ids.size());
	for (idx_t c = 0; c < g->column_ids.size() && c < input.column_indexes.size(); c++) {
		auto id = g->column_ids[c];
		if (bind.uniform && id < bind.fields.size() && bind.fields[id].type.id == vtx::TypeId::STRUCT) {
			auto selection = make_uniq<vtx::StreamSelection>();
			if (SelectFields(input.column_indexes[c], bind.fields[id].type, *selection) && !selection->all) {
				g->selections[c] = std::move(selection);
			}
		}
	}
	g->projection_ids = input.projection_ids;
	g->projected.assign(g->column_ids.size(), g->projection_ids.empty());
	for (auto p : g->projection_ids) {
		g->projected[p] = true;
	}
	std::vector<std::pair<idx_t, const TableFilter *>> file_filters; //! column id, filter
	if (input.filters) {
		g->filters = input.filters->Copy();
		for (auto &entry : g->filters->filters) {
			const idx_t pos = entry.first;
			const idx_t id = g->column_ids[pos];
			const TableFilter &filter = *entry.second;
			Value constant;
			// Non-uniform scans (schema_union.hpp) evaluate every column filter on the emitted values.
			if (id < bind.fields.size() && bind.uniform) {
				ColumnFilter cf {pos, id, &filter, vtx::compute::Predicate(), false, vtx::compute::Predicate()};
				bool dynamic = false; // as cf.dynamic: ROWS takes whatever SCAN takes, less optional filters
				if (TranslateFilter(filter, bind.types[id], FilterUse::SCAN, cf.predicate, cf.dynamic) &&
				    TranslateFilter(filter, bind.types[id], FilterUse::ROWS, cf.rows, dynamic)) {
					g->column_filters.push_back(std::move(cf));
					continue;
				}
			} else if (FileConstant(bind, id, 0, constant)) {
				file_filters.emplace_back(id, &filter);
				continue;
			}
			if (id < bind.fields.size() && bind.uniform) {
				AddStructPrunes(bind, id, filter, g->struct_prunes);
			}
			RowRanges probe;
			if ((id == COLUMN_IDENTIFIER_ROW_ID || bind.IsRowNumberColumn(id)) && RowsKept(filter, 0, 1, probe)) {
				g->row_filters.push_back(&filter); // applied to the zone's mask, exactly
				continue;
			}
			g->residual.push_back(ResidualFilter {pos, &filter});
			g->projected[pos] = true;
		}
	}
	g->deferrable.assign(g->column_ids.size(), false);
	for (idx_t c = 0; c < g->column_ids.size(); c++) {
		g->deferrable[c] = bind.uniform && !g->selections[c];
	}
	idx_t batch = 0;
	const idx_t expressions = bind.expression_filters.size();
	std::unique_ptr<ExpressionFilterEvaluator> evaluator;
	if (expressions) {
		evaluator = make_uniq<ExpressionFilterEvaluator>(context, bind.expression_filters);
	}
	std::vector<vtx::compute::ZoneMatch> expression_match(expressions);
	// Files not held since binding (scans of many files) are opened and validated again, side by
	// side; their handles are closed at once (scan threads open one file at a time), so that no
	// more files are open together than there are threads.
	const bool keep_open = bind.files.size() <= kFilesHeldOpen;
	g->metas.resize(bind.files.size());
	g->sources.resize(bind.files.size());
	if (!keep_open) {
		g->open_files.reset(new ScanGlobalState::SharedFile[bind.files.size()]);
	}
	ForEachFile(context, bind.files.size(), [&](idx_t f) {
		std::unique_ptr<FileSource> source;
		if (bind.uniform) {
			auto file = OpenPlannedFile(context, bind.files, f, bind.fields, bind.types);
			source = std::move(file.source);
			g->metas[f] = std::move(file.meta);
		} else {
			auto file = OpenUnionFile(context, bind.files, f);
			source = std::move(file.source);
			g->metas[f] = std::move(file.meta);
		}
		if (keep_open) {
			g->sources[f] = std::move(source);
		}
	});
	for (idx_t f = 0; f < bind.files.size(); f++) {
		auto &meta = g->metas[f];
		bool file_matches = true;
		for (auto &ff : file_filters) {
			Value constant;
			if (FileConstant(bind, ff.first, f, constant) && !ConstantMatches(context, *ff.second, constant)) {
				file_matches = false;
				break;
			}
		}
		for (idx_t z = 0; z < meta->zones.size(); z++, batch++) {
			auto &zone = meta->zones[z];
			auto match = file_matches && zone.rows > 0 && !RowsRuledOut(*g, zone) ? vtx::compute::ZoneMatch::ALL
			                                                                      : vtx::compute::ZoneMatch::NONE;
			for (auto &nf : bind.null_filters) {
				auto &stats = zone.chunks[nf.first].stats;
				if (nf.second ? stats.nulls == 0 : stats.nulls == stats.rows) {
					match = vtx::compute::ZoneMatch::NONE;
				}
			}
			for (auto &cf : g->column_filters) {
				if (match == vtx::compute::ZoneMatch::NONE) {
					break;
				}
				if (!cf.dynamic) {
					match = vtx::compute::And(
					    match, vtx::compute::ClassifyZone(cf.predicate, bind.fields[cf.field].type, zone.chunks[cf.field].stats));
				}
			}
			for (auto &sp : g->struct_prunes) {
				if (match == vtx::compute::ZoneMatch::NONE) {
					break;
				}
				const vtx::ChunkMeta *chunk = &zone.chunks[sp.field];
				for (auto i : sp.route) {
					chunk = &chunk->children[i];
				}
				if (vtx::compute::ClassifyZone(sp.predicate, sp.type, chunk->stats) == vtx::compute::ZoneMatch::NONE) {
					match = vtx::compute::ZoneMatch::NONE;
				}
			}
			for (idx_t k = 0; k < expressions && match != vtx::compute::ZoneMatch::NONE; k++) {
				expression_match[k] = evaluator->Classify(k, ZoneOf(bind, zone, f));
				match = vtx::compute::And(match, expression_match[k]);
			}
			if (match != vtx::compute::ZoneMatch::NONE) {
				g->work.push_back(WorkItem {f, z, batch});
				g->expression_matches.insert(g->expression_matches.end(), expression_match.begin(), expression_match.end());
			} else if (zone.rows > 0) {
				g->zones_skipped++;
			}
		}
	}
	// Under a Top-N boundary, read the zones most likely to hold the top rows first: the
	// boundary then tightens at once and the statistics of most other zones rule them out.
	// (Only Top-N pushes dynamic comparisons; its result does not depend on the scan's order.)
	for (auto &cf : g->column_filters) {
		bool descending = false;
		auto &type = bind.fields[cf.field].type;
		if (!cf.dynamic || !DynamicDirection(*cf.filter, descending) || !type.Ordered() || type.IsFloat()) {
			continue;
		}
		auto bound = [&](const WorkItem &w) -> const vtx::ZoneStats & {
			return g->metas[w.file]->zones[w.zone].chunks[cf.field].stats;
		};
		// Reordered as pairs, so that each zone keeps its expression filters' classification.
		std::vector<std::pair<WorkItem, std::vector<vtx::compute::ZoneMatch>>> items;
		for (idx_t i = 0; i < g->work.size(); i++) {
			items.emplace_back(g->work[i], std::vector<vtx::compute::ZoneMatch>(
			                                   g->expression_matches.begin() + i * expressions,
			                                   g->expression_matches.begin() + (i + 1) * expressions));
		}
		std::stable_sort(items.begin(), items.end(), [&](const std::pair<WorkItem, std::vector<vtx::compute::ZoneMatch>> &pa,
		                                                 const std::pair<WorkItem, std::vector<vtx::compute::ZoneMatch>> &pb) {
			auto &a = pa.first, &b = pb.first;
			auto &sa = bound(a), &sb = bound(b);
			const bool ka = sa.has_minmax && sa.minmax_exact, kb = sb.has_minmax && sb.minmax_exact;
			if (ka != kb) {
				return ka; // zones with known bounds first
			}
			if (!ka) {
				return false;
			}
			return descending ? vtx::compute::CompareValues(type, sa.max, sb.max) > 0
			                  : vtx::compute::CompareValues(type, sa.min, sb.min) < 0;
		});
		g->expression_matches.clear();
		for (idx_t i = 0; i < items.size(); i++) {
			g->work[i] = items[i].first;
			g->expression_matches.insert(g->expression_matches.end(), items[i].second.begin(), items[i].second.end());
		}
		break;
	}
	g->total_zones = batch;
	g->max_threads = std::max<idx_t>(1, std::min<idx_t>(g->work.size(), TaskScheduler::GetScheduler(context).NumberOfThreads()));
	// Enough for each thread's columns of a few zones in flight (DuckDB holds a chunk's vectors
	// while operators above the scan still use them).
	g->pool = std::make_shared<DecodePool>(4 * g->max_threads * MaxValue<size_t>(1, g->column_ids.size()));
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
			types.push_back(bind.ColumnType(id));
		}
		l->scan_chunk.Initialize(Allocator::Get(context.client), types);
	}
	for (auto &r : g.residual) {
		l->residual_states.push_back(TableFilterState::Initialize(context.client, *r.filter));
	}
	l->predicates.resize(g.column_filters.size());
	l->row_predicates.resize(g.column_filters.size());
	l->matches.resize(g.column_filters.size());
	if (!bind.expression_filters.empty()) {
		l->evaluator = make_uniq<ExpressionFilterEvaluator>(context.client, bind.expression_filters);
	}
	return std::move(l);
}

//! Classifies the zone under the filters as they stand now (dynamic ones change while the query runs).
vtx::compute::ZoneMatch ClassifyZoneNow(const ScanBindData &bind, const ScanGlobalState &g, ScanLocalState &l,
                                        const vtx::ZoneMeta &zone) {
	auto match = vtx::compute::ZoneMatch::ALL;
	for (idx_t k = 0; k < g.column_filters.size(); k++) {
		auto &cf = g.column_filters[k];
		auto &pred = l.predicates[k];
		auto &rows = l.row_predicates[k];
		if (cf.dynamic) {
			bool dynamic = false;
			if (!TranslateFilter(*cf.filter, bind.types[cf.field], FilterUse::SCAN, pred, dynamic)) {
				pred = vtx::compute::Predicate::True();
			}
			if (!TranslateFilter(*cf.filter, bind.types[cf.field], FilterUse::ROWS, rows, dynamic)) {
				rows = vtx::compute::Predicate::True();
			}
		} else {
			pred = cf.predicate;
			rows = cf.rows;
		}
		l.matches[k] = vtx::compute::ClassifyZone(pred, bind.fields[cf.field].type, zone.chunks[cf.field].stats);
		if (l.matches[k] == vtx::compute::ZoneMatch::SOME && rows.IsTrue()) {
			l.matches[k] = vtx::compute::ZoneMatch::ALL; // only optional filters straddle it
		}
		match = vtx::compute::And(match, l.matches[k]);
		if (match == vtx::compute::ZoneMatch::NONE) {
			break;
		}
	}
	return match;
}

bool NextZone(ClientContext &context, const ScanBindData &bind, ScanGlobalState &g, ScanLocalState &l) {
	while (true) {
		auto idx = g.next.fetch_add(1);
		if (idx >= g.work.size()) {
			l.active = false;
			return false;
		}
		l.item = g.work[idx];
		auto &meta = *g.metas[l.item.file];
		auto &zone = meta.zones[l.item.zone];
		auto match = ClassifyZoneNow(bind, g, l, zone);
		l.row_truth.clear();
		RowRanges kept;
		if (match != vtx::compute::ZoneMatch::NONE && !g.row_filters.empty()) {
			if (!ZoneRowsKept(g, zone, kept)) {
				match = vtx::compute::ZoneMatch::NONE;
			} else if (kept.size() != 1 || kept[0].first != static_cast<int64_t>(zone.first_row) ||
			           kept[0].second != static_cast<int64_t>(zone.first_row + zone.rows)) {
				l.row_truth.assign(zone.rows, 0);
				for (auto &r : kept) {
					std::fill(l.row_truth.begin() + (r.first - static_cast<int64_t>(zone.first_row)),
					          l.row_truth.begin() + (r.second - static_cast<int64_t>(zone.first_row)), uint8_t(1));
				}
			}
		}
		if (match == vtx::compute::ZoneMatch::NONE) {
			g.zones_skipped_late++;
			g.zones_skipped++;
			g.done++;
			continue;
		}
		const idx_t expressions = bind.expression_filters.size();
		const vtx::compute::ZoneMatch *expression_match = g.expression_matches.data() + idx * expressions;
		bool expressions_straddle = false;
		for (idx_t k = 0; k < expressions; k++) {
			expressions_straddle = expressions_straddle || expression_match[k] == vtx::compute::ZoneMatch::SOME;
		}
		const bool straddles = match == vtx::compute::ZoneMatch::SOME;
		if (straddles || expressions_straddle) {
			g.zones_filtered++; // counted before the decode, see ScanDynamicToString
		}
		FileSource *source = g.sources[l.item.file].get();
		if (!source) {
			// One open file per thread at a time, however many files the scan covers.
			if (!l.source || l.source_file != l.item.file) {
				// The previous file stays open until this one is: a source alive throughout keeps the
				// threads' scratch buffers in use (format/scratch.hpp) rather than ending their activity.
				auto next = SharedOpen(context, g, bind.files[l.item.file], l.item.file, meta);
				l.source = std::move(next);
				l.source_file = l.item.file;
			}
			source = l.source.get();
		}
		l.rows = zone.rows;
		l.first_row = zone.first_row;
		l.offset = 0;
		// On a remote file, the zone's segments that lie close together are fetched in one request
		// (below, once the columns to read are known) and read from memory.
		vtx::PrefetchedSource prefetched(*source);
		vtx::InputSource *reader = source->Remote() ? static_cast<vtx::InputSource *>(&prefetched) : source;
		auto read = [&](idx_t id, const vtx::StreamSelection *selection, bool defer = false) {
			auto chunk = g.pool->Get();
			try {
				vtx::ReadChunk(*reader, meta, l.item.zone, bind.FileField(l.item.file, id), *chunk, selection, nullptr,
				               defer);
			} catch (vtx::FormatError &e) {
				ThrowFileError(bind.files[l.item.file].path, e);
			}
			return chunk;
		};
		auto expression_reads = [&](idx_t id) {
			for (idx_t k = 0; k < expressions; k++) {
				auto &cols = bind.expression_filters[k].columns;
				if (expression_match[k] == vtx::compute::ZoneMatch::SOME && std::find(cols.begin(), cols.end(), id) != cols.end()) {
					return true;
				}
			}
			return false;
		};
		l.columns.assign(g.column_ids.size(), nullptr);
		l.reads.clear();
		for (idx_t c = 0; c < g.column_ids.size(); c++) {
			auto id = g.column_ids[c];
			if (id >= bind.fields.size() || bind.FileField(l.item.file, id) == kMissingField) {
				continue; // not a file column, or one this file lacks: emitted as a constant
			}
			bool needed = g.projected[c];
			for (idx_t k = 0; !needed && straddles && k < g.column_filters.size(); k++) {
				needed = g.column_filters[k].position == c && l.matches[k] != vtx::compute::ZoneMatch::ALL;
			}
			// An expression filter reads the whole column, whatever the projection asks of a struct.
			const bool whole = expressions_straddle && expression_reads(id);
			if (!needed && !whole) {
				continue; // only filtered on, and every row of the zone passes
			}
			l.reads.push_back(c);
		}
		if (source->Remote()) {
			l.segments.clear();
			for (auto c : l.reads) {
				auto id = g.column_ids[c];
				const bool whole = expressions_straddle && expression_reads(id);
				vtx::ChunkSegments(meta, l.item.zone, bind.FileField(l.item.file, id),
				                   whole ? nullptr : g.selections[c].get(), l.segments);
			}
			// The columns only an expression filter reads (below), where it straddles the zone.
			for (idx_t k = 0; k < expressions; k++) {
				if (expression_match[k] != vtx::compute::ZoneMatch::SOME) {
					continue;
				}
				for (auto id : bind.expression_filters[k].columns) {
					if (id < bind.fields.size() &&
					    std::find(g.column_ids.begin(), g.column_ids.end(), id) == g.column_ids.end()) {
						vtx::ChunkSegments(meta, l.item.zone, bind.FileField(l.item.file, id), nullptr, l.segments);
					}
				}
			}
			try {
				prefetched.Fetch(l.segments, kRemoteGap);
			} catch (vtx::FormatError &e) {
				ThrowFileError(bind.files[l.item.file].path, e);
			}
		}
		l.filtered = straddles || expressions_straddle || !l.row_truth.empty();
		auto read_column = [&](idx_t c) {
			auto id = g.column_ids[c];
			const bool whole = expressions_straddle && expression_reads(id);
			// Values handed to DuckDB are decoded a vector at a time as they are emitted (only the kept
			// rows where a filter keeps few); values filtered on, by the filter a block at a time (or
			// once per dictionary entry or run). A column both filtered on and emitted is read twice
			// so, from its packed form, which costs less than a zone-sized decode when few rows pass.
			l.columns[c] = read(id, whole ? nullptr : g.selections[c].get(), g.deferrable[c] && !whole);
		};
		if (!l.filtered) {
			for (auto c : l.reads) {
				read_column(c);
			}
			l.active = true;
			return true;
		}
		// A column is decoded when a filter first needs it, and the projected-only ones once the
		// filters are done: a zone whose rows all fail the filters on its integers never decodes
		// its strings (a long string column's segment is most of a zone's work).
		auto column = [&](idx_t c) -> vtx::DecodedColumn & {
			if (!l.columns[c]) {
				read_column(c);
			}
			return *l.columns[c];
		};
		auto none_left = [&]() {
			return std::memchr(l.mask.Rows(), 1, l.rows) == nullptr;
		};
		l.mask.Begin(l.rows);
		if (!l.row_truth.empty()) {
			l.mask.AndRows(l.row_truth.data());
		}
		bool empty = false;
		// Filters on fixed-width columns first, strings and nested values after, while rows are left.
		for (const bool variable : {false, true}) {
			for (idx_t k = 0; straddles && !empty && k < g.column_filters.size(); k++) {
				auto &cf = g.column_filters[k];
				auto &type = bind.fields[cf.field].type;
				if (l.matches[k] != vtx::compute::ZoneMatch::ALL && (type.IsString() || type.IsNested()) == variable) {
					l.mask.And(l.row_predicates[k], type, column(cf.position));
					empty = none_left();
				}
			}
		}
		for (idx_t k = 0; k < expressions && !empty; k++) {
			if (expression_match[k] != vtx::compute::ZoneMatch::SOME) {
				continue;
			}
			std::vector<FilterInput> inputs;
			for (auto id : bind.expression_filters[k].columns) {
				FilterInput in;
				in.logical = bind.ColumnType(id);
				if (id < bind.fields.size()) {
					auto at = std::find(g.column_ids.begin(), g.column_ids.end(), id);
					const vtx::DecodedColumn *chunk = nullptr;
					const auto position = static_cast<idx_t>(at - g.column_ids.begin());
					if (at != g.column_ids.end() && std::find(l.reads.begin(), l.reads.end(), position) != l.reads.end()) {
						chunk = &column(position);
					} else {
						auto &cached = l.filter_columns[id];
						cached = read(id, nullptr);
						chunk = cached.get();
					}
					in.decoded = chunk;
					in.type = bind.fields[id].type;
				} else {
					FileConstant(bind, id, l.item.file, in.constant);
				}
				inputs.push_back(std::move(in));
			}
			empty = l.evaluator->Evaluate(k, inputs, l.rows, l.mask) == vtx::compute::ZoneMatch::NONE;
		}
		l.filter_columns.clear();
		if (!empty && expressions_straddle) {
			empty = none_left();
		}
		if (empty) {
			g.done++;
			continue; // no row of the zone passes
		}
		for (auto c : l.reads) {
			if (!l.columns[c]) {
				read_column(c);
			}
		}
		l.active = true;
		return true;
	}
}

//! Points `vec` at the file's value of a column that holds one per file; false for other columns.
bool ReferenceFileConstant(const ScanBindData &bind, idx_t id, idx_t file, Vector &vec) {
	Value constant;
	if (!FileConstant(bind, id, file, constant)) {
		return false;
	}
	vec.Reference(constant);
	return true;
}

//! A vector of which at most 1 row in this many passes is read row by row (EmitFewRows): each
//! kept row then costs about what unpacking this many rows of a block would.
constexpr idx_t kFewRowsFraction = 4;

//! Column position `c` of the current vector's `selected` kept rows into `vec`, as a vector of
//! that many rows. False where only the whole vector can be emitted (nested values, files whose
//! columns differ from the scan's): the caller emits it and slices it to the kept rows.
bool EmitFewRows(const ScanBindData &bind, const ScanLocalState &l, idx_t c, idx_t id, const SelectionVector &kept,
                 idx_t selected, Vector &vec) {
	if (id < bind.fields.size() && l.columns[c]) {
		if (!bind.uniform) {
			return false;
		}
		try {
			return EmitSelectedRows(*l.columns[c], l.columns[c], l.offset, kept, selected, bind.fields[id].type, vec);
		} catch (vtx::FormatError &e) {
			ThrowFileError(bind.files[l.item.file].path, e);
		}
	}
	if (ReferenceFileConstant(bind, id, l.item.file, vec)) {
		return true;
	}
	if ((id == COLUMN_IDENTIFIER_ROW_ID || bind.IsRowNumberColumn(id)) && vec.GetType() == LogicalType::BIGINT) {
		auto rows = FlatVector::GetData<int64_t>(vec);
		for (idx_t i = 0; i < selected; i++) {
			rows[i] = static_cast<int64_t>(l.first_row + l.offset + kept.get_index(i));
		}
		return true;
	}
	return false; // a column the file lacks: a NULL constant, which the slice leaves as it is
}

void ScanFunction(ClientContext &context, TableFunctionInput &data, DataChunk &output) {
	auto &bind = data.bind_data->Cast<ScanBindData>();
	auto &g = data.global_state->Cast<ScanGlobalState>();
	auto &l = data.local_state->Cast<ScanLocalState>();
	while (true) {
		while (!l.active || l.offset >= l.rows) {
			if (l.active) {
				g.done++;
			}
			if (!NextZone(context, bind, g, l)) {
				// Nothing more: also when a chunk just filled had no row left by the residual filters.
				output.SetCardinality(0);
				return;
			}
		}
		const idx_t count = std::min<idx_t>(STANDARD_VECTOR_SIZE, l.rows - l.offset);
		idx_t selected = count;
		SelectionVector sel(l.sel_data.data());
		if (l.filtered) {
			static_assert(sizeof(sel_t) == sizeof(uint32_t), "selection entries are 32-bit row positions");
			selected = vtx::compute::SelectedRows(l.mask.Rows() + l.offset, static_cast<uint32_t>(count),
			                                      reinterpret_cast<uint32_t *>(sel.data()));
			if (selected == 0) {
				l.offset += count;
				continue;
			}
		}
		DataChunk &target = l.scan_chunk.ColumnCount() ? l.scan_chunk : output;
		target.Reset();
		// Where the zone's filters kept few rows of the vector (a selective join filter on a fact
		// table), only those are read and handed on, as vectors of `selected` rows; residual
		// filters need every row of the vector emitted first.
		const bool few = l.filtered && g.residual.empty() && selected * kFewRowsFraction <= count;
		SelectionVector kept;
		if (few) {
			kept.Initialize(selected);
			std::copy_n(sel.data(), selected, kept.data());
		}
		for (idx_t c = 0; c < g.column_ids.size(); c++) {
			if (!g.projected[c]) {
				continue; // filtered on in the zone's mask already, and never handed to DuckDB
			}
			auto id = g.column_ids[c];
			auto &vec = target.data[c];
			if (few) {
				if (EmitFewRows(bind, l, c, id, kept, selected, vec)) {
					continue;
				}
			}
			if (id < bind.fields.size() && l.columns[c]) {
				if (bind.uniform && l.columns[c]->deferred.encoding) {
					try {
						EmitDeferredColumn(*l.columns[c], l.columns[c], l.offset, count, bind.fields[id].type, vec);
					} catch (vtx::FormatError &e) {
						ThrowFileError(bind.files[l.item.file].path, e);
					}
				} else if (bind.uniform) {
					EmitColumn(*l.columns[c], l.columns[c], l.offset, count, bind.fields[id].type, vec);
				} else {
					EmitFileColumn(context, bind, l.item.file, id, *l.columns[c], l.columns[c], l.offset, count, vec);
				}
			} else if (ReferenceFileConstant(bind, id, l.item.file, vec)) {
				// a partition key, `filename` or the file's index: one value for the vector
			} else if ((id == COLUMN_IDENTIFIER_ROW_ID || bind.IsRowNumberColumn(id)) &&
			           vec.GetType() == LogicalType::BIGINT) {
				auto rows = FlatVector::GetData<int64_t>(vec);
				for (idx_t i = 0; i < count; i++) {
					rows[i] = static_cast<int64_t>(l.first_row + l.offset + i);
				}
			} else {
				vec.SetVectorType(VectorType::CONSTANT_VECTOR);
				ConstantVector::SetNull(vec, true);
			}
			if (few) {
				vec.Slice(kept, selected);
			}
		}
		l.offset += count;
		if (few) {
			target.SetCardinality(selected);
			if (&target != &output) {
				output.ReferenceColumns(target, g.projection_ids);
			}
			return;
		}
		target.SetCardinality(count);
		if (!g.residual.empty()) {
			if (!l.filtered) {
				for (idx_t i = 0; i < count; i++) {
					sel.set_index(i, i);
				}
			}
			for (idx_t r = 0; r < g.residual.size() && selected > 0; r++) {
				auto &vec = target.data[g.residual[r].position];
				UnifiedVectorFormat vdata;
				vec.ToUnifiedFormat(count, vdata);
				ColumnSegment::FilterSelection(sel, vec, vdata, *g.residual[r].filter, *l.residual_states[r], count,
				                               selected);
			}
			if (selected == 0) {
				target.SetCardinality(0); // nothing of this vector is returned
				continue;
			}
		}
		if (selected < count) {
			// The returned chunk owns its selection: `sel_data` is rewritten by the next call.
			SelectionVector kept(selected);
			std::copy_n(sel.data(), selected, kept.data());
			target.Slice(kept, selected);
		}
		if (&target != &output) {
			output.ReferenceColumns(target, g.projection_ids);
		}
		return;
	}
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

//! As read_parquet: `filename` (unless the `filename := true` column is there), the row's
//! number within its file, and the file's position in the list.
vector<column_t> ScanRowIdColumns(ClientContext &, optional_ptr<FunctionData>) {
	return {MultiFileReader::COLUMN_IDENTIFIER_FILE_INDEX, MultiFileReader::COLUMN_IDENTIFIER_FILE_ROW_NUMBER};
}

virtual_column_map_t ScanVirtualColumns(ClientContext &, optional_ptr<FunctionData> bind_data) {
	virtual_column_map_t result;
	if (!bind_data || !bind_data->Cast<ScanBindData>().filename_column) {
		result.insert(make_pair(MultiFileReader::COLUMN_IDENTIFIER_FILENAME, TableColumn("filename", LogicalType::VARCHAR)));
	}
	result.insert(make_pair(MultiFileReader::COLUMN_IDENTIFIER_FILE_ROW_NUMBER,
	                        TableColumn("file_row_number", LogicalType::BIGINT)));
	result.insert(make_pair(MultiFileReader::COLUMN_IDENTIFIER_FILE_INDEX, TableColumn("file_index", LogicalType::UBIGINT)));
	result.insert(make_pair(COLUMN_IDENTIFIER_EMPTY, TableColumn("", LogicalType::BOOLEAN)));
	return result;
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
	if (!bind.expression_filters.empty()) {
		// Not "Filters": DuckDB lists its table filters under that name after this.
		result["Expression Filters"] = FiltersDisplay(bind.expression_filters);
	}
	if (!bind.not_pushed.empty()) {
		result["Not Pushed"] = bind.not_pushed;
	}
	return result;
}

InsertionOrderPreservingMap<string> ScanDynamicToString(TableFunctionDynamicToStringInput &input) {
	InsertionOrderPreservingMap<string> result;
	if (input.global_state) {
		// EXPLAIN ANALYZE heads every table function's box TABLE_SCAN; say which one ran, as
		// DuckDB does for read_parquet.
		result["Function"] = "VORTEX_SCAN";
		auto &g = input.global_state->Cast<ScanGlobalState>();
		// Zones claimed and not ruled out: every claimed zone is read in the same call. Counted
		// so rather than after each decode, the figure is final even when DuckDB asks while a
		// thread is still decoding the last zone (CI once saw 4 of 5 zones under EXPLAIN ANALYZE).
		const idx_t claimed = std::min<idx_t>(g.next.load(), g.work.size());
		const idx_t late = std::min<idx_t>(g.zones_skipped_late.load(), claimed);
		result["Zones Scanned"] = std::to_string(claimed - late) + "/" + std::to_string(g.total_zones);
		if ((g.filters && !g.filters->filters.empty()) || !g.expression_matches.empty()) {
			result["Zones Skipped"] = std::to_string(g.zones_skipped.load());
			result["Zones Filtered"] = std::to_string(g.zones_filtered.load());
		}
	}
	return result;
}

} // namespace

TableFunction GetVortexScanFunction() {
	TableFunction tf("vortex_scan", {LogicalType::VARCHAR}, ScanFunction, ScanBind, ScanInitGlobal, ScanInitLocal);
	// read_parquet's options for its files (MultiFileReader::AddParameters), parsed by DuckDB.
	tf.named_parameters["filename"] = LogicalType::ANY;
	tf.named_parameters["hive_partitioning"] = LogicalType::BOOLEAN;
	tf.named_parameters["union_by_name"] = LogicalType::BOOLEAN;
	tf.named_parameters["hive_types"] = LogicalType::ANY;
	tf.named_parameters["hive_types_autocast"] = LogicalType::BOOLEAN;
	tf.named_parameters["file_row_number"] = LogicalType::BOOLEAN;
	tf.projection_pushdown = true;
	tf.filter_pushdown = true;
	tf.filter_prune = true;
	tf.pushdown_complex_filter = ScanComplexFilter;
	// What the scan took out of the plan must travel with it (scan_serialization.hpp).
	tf.serialize = ScanSerialize;
	tf.deserialize = ScanDeserialize;
	// No supports_pushdown_type: filters on types the compute layer does not take (INTERVAL,
	// TIME WITH TIME ZONE, UUID) are evaluated by DuckDB in the scan; those on file_row_number by the
	// scan itself, as row ranges (RowsKept).
	tf.get_virtual_columns = ScanVirtualColumns;
	// Late materialization (DuckDB's optimizer): a Top-N or LIMIT over a few rows reads the sort and
	// filter columns first, then joins the other columns back by (file_index, file_row_number), whose
	// filters skip every zone but the rows' own (RowsRuledOut), as read_parquet does.
	tf.late_materialization = true;
	tf.get_row_id_columns = ScanRowIdColumns;
	tf.cardinality = ScanCardinality;
	tf.statistics = ScanStatistics;
	tf.get_partition_data = ScanPartitionData;
	tf.table_scan_progress = ScanProgress;
	tf.to_string = ScanToString;
	tf.dynamic_to_string = ScanDynamicToString;
	return tf;
}

TableFunctionSet GetVortexScanFunctions(const std::string &name) {
	TableFunctionSet set(name);
	auto one = GetVortexScanFunction();
	one.name = name;
	set.AddFunction(one);
	one.arguments = {LogicalType::LIST(LogicalType::VARCHAR)};
	set.AddFunction(one);
	return set;
}

bool IsVortexScan(const TableFunction &function) {
	return function.function == ScanFunction;
}

} // namespace vortex
