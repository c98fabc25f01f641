#include "pushed_aggregate.hpp"

#include "../../compute/grouped_aggregation.hpp"
#include "../../compute/selection.hpp"
#include "../../compute/zone_mask.hpp"
#include "../../format/encodings/encoding.hpp"
#include "../../format/file/reader.hpp"
#include "../sketches.hpp"
#include "plan_serialization.hpp"
#include "verified_summaries.hpp"
#include "zone_filters.hpp"
#include "../file_io.hpp"
#include "../metadata_cache.hpp"
#include "../zone_fetch.hpp"
#include "plan.hpp"
#include "../type_mapping.hpp"
#include "duckdb/execution/partition_info.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>

namespace vortex {

using namespace duckdb;
using vtx::compute::AggregateState;
using vtx::compute::KernelOptions;

unique_ptr<FunctionData> PushedBindData::Copy() const {
	return make_uniq<PushedBindData>(*this);
}

bool PushedBindData::Equals(const FunctionData &other_p) const {
	auto &o = other_p.Cast<PushedBindData>();
	return aggregates == o.aggregates && field_types == o.field_types && leaves == o.leaves && filters == o.filters &&
	       SameFilters(expressions, o.expressions) && file_columns.hive.values == o.file_columns.hive.values &&
	       file_filters == o.file_filters && SamePlannedFiles(files, o.files);
}

FilterColumns PushedBindData::Columns() const {
	FilterColumns c;
	c.type = [this](idx_t field) -> const vtx::ColumnType & { return FieldType(field); };
	c.stats = [this](const vtx::ZoneMeta &zone, idx_t field) -> const vtx::ZoneStats & { return Chunk(zone, field).stats; };
	return c;
}

const vtx::ChunkMeta &PushedBindData::Chunk(const vtx::ZoneMeta &zone, idx_t field) const {
	if (field < fields.size()) {
		return zone.chunks[field];
	}
	auto &leaf = leaves[field - fields.size()];
	const vtx::ChunkMeta *chunk = &zone.chunks[leaf.field];
	for (auto i : leaf.route) {
		chunk = &chunk->children[i];
	}
	return *chunk;
}

void PushedBindData::Read(vtx::InputSource &source, const vtx::FileMetadata &meta, size_t zone, idx_t field,
                          vtx::DecodedColumn &out, const vtx::RowRange *rows) const {
	if (field < fields.size()) {
		vtx::ReadChunk(source, meta, zone, field, out, nullptr, rows);
		return;
	}
	auto &leaf = leaves[field - fields.size()];
	vtx::ReadChunkAt(source, meta, zone, leaf.field, leaf.route, out);
}

namespace {


using vtx::compute::ZoneMatch;

struct Accumulation {
	std::map<idx_t, AggregateState> states;
	uint64_t rows = 0;
};

//! One thread's straddling zones whose only filter is decided per dictionary entry (`url LIKE
//! '%x%'`): aggregated per entry, keyless, and only the entries that hold added. No row mask is
//! written and no row compacted.
struct EntryAccumulation {
	std::vector<idx_t> fields; //! the value columns, in Accumulation::states order
	std::unique_ptr<vtx::compute::GroupedAggregation> by_entry;
	idx_t zones = 0; //! aggregated so

	//! Null where some aggregate needs what the per-entry accumulators do not keep (sketches).
	explicit EntryAccumulation(const Accumulation &acc) {
		std::vector<vtx::ColumnType> types;
		std::vector<bool> minmax, sum, distinct;
		for (auto &entry : acc.states) {
			if (entry.second.needs_sketch) {
				return;
			}
			fields.push_back(entry.first);
			types.push_back(entry.second.type);
			minmax.push_back(entry.second.needs_minmax);
			sum.push_back(entry.second.needs_sum);
			distinct.push_back(entry.second.needs_distinct);
		}
		by_entry = std::make_unique<vtx::compute::GroupedAggregation>(std::vector<vtx::ColumnType>(), std::move(types),
		                                                               std::move(minmax), std::move(sum), std::move(distinct));
	}
	//! Whether a zone of `rows` rows filtered by the entries of `coded` is better aggregated per
	//! entry: a few entries to many rows each (each entry costs a summary).
	bool Takes(const vtx::DecodedColumn &coded, uint64_t rows) const {
		return by_entry && coded.dictionary.size() * 8 <= rows;
	}
	void Into(Accumulation &acc) {
		if (!by_entry) {
			return;
		}
		for (auto &g : by_entry->Groups()) {
			acc.rows += g.rows;
			for (size_t v = 0; v < fields.size(); v++) {
				acc.states.at(fields[v]).Merge(g.values[v]);
			}
		}
	}
};

//! A zone that straddles the filters, to be decoded and filtered; or (`whole`) one every row of
//! which passes but whose statistics do not answer, to be decoded by the scan threads too.
struct StraddlingZone {
	idx_t file;
	size_t zone;
	std::vector<ZoneMatch> matches; //! per filter
	bool whole = false;
};

//! Whether the statistics of `zone` answer every aggregate of `acc` (nothing to decode).
bool StatsAnswer(const PushedBindData &bind, const vtx::ZoneMeta &zone, const Accumulation &acc) {
	for (auto &entry : acc.states) {
		if (!entry.second.Suffices(bind.Chunk(zone, entry.first).stats)) {
			return false;
		}
	}
	return true;
}

//! Adds a zone every row of which passes the filters: from its statistics where they answer,
//! else from its decoded columns. True when a column had to be decoded.
bool AddWholeZone(const PushedBindData &bind, vtx::InputSource &source, const vtx::FileMetadata &meta, size_t z,
                  const std::string &path, Accumulation &acc) {
	auto &zone = meta.zones[z];
	acc.rows += zone.rows;
	bool decoded = false;
	for (auto &entry : acc.states) {
		auto &state = entry.second;
		auto &stats = bind.Chunk(zone, entry.first).stats;
		if (state.Suffices(stats)) {
			state.AddStats(stats);
			continue;
		}
		vtx::DecodedColumn chunk;
		try {
			bind.Read(source, meta, z, entry.first, chunk);
		} catch (vtx::FormatError &e) {
			ThrowFileError(path, e);
		}
		state.AddDecoded(chunk);
		decoded = true;
	}
	return decoded;
}

//! How a straddling zone's kept rows lie in blocks of 2,048: a block where at most one row in
//! kFewRowsFraction passes is read row by row (DecodeRowsAt, no block unpacked), one where none
//! passes not at all, the others unpacked whole; where most blocks would be unpacked whole, the
//! column is decoded whole instead (faster: 20% of rows passing at random, 21 against 24-26 ms).
//! Over 10M rows, pushed / off (scratch/one.mjs, 11 alternating runs, two rounds), the whole
//! column decoded against this: rows passing in runs (`count(*), sum(c4) WHERE c1 = 0.25`, a
//! clustered DECIMAL beside a clustered key of 7 values) 3.2-3.6 -> 0.88-0.94; at random, 1%
//! passing 1.34-1.43 -> 0.86-0.94, 10% 1.00-1.01 -> 0.98-1.07, 20% 0.82-0.83 -> 0.69-0.72, 45%
//! (not planned) 1.20-1.22 -> 1.15-1.19.
struct KeptBlocks {
	static constexpr uint64_t kBlock = 2048;
	static constexpr uint64_t kFewRowsFraction = 8;
	std::vector<uint32_t> kept; //! per block: its rows that pass
	bool worth = false;         //! most blocks skipped or read row by row

	//! (Zones where more than a quarter of the rows pass are decoded whole without counting.)
	void Plan(const uint8_t *selected, uint64_t count, uint64_t selected_rows) {
		worth = false;
		if (selected_rows * 4 > count) {
			return;
		}
		const uint64_t blocks = (count + kBlock - 1) / kBlock;
		kept.assign(blocks, 0);
		uint64_t whole = 0;
		for (uint64_t k = 0; k < blocks; k++) {
			const uint64_t b = k * kBlock, m = std::min(kBlock, count - b);
			uint32_t n = 0;
			for (uint64_t i = b; i < b + m; i++) {
				n += selected[i] != 0;
			}
			kept[k] = n;
			whole += n * kFewRowsFraction > m;
		}
		worth = whole * 2 < blocks;
	}
};

//! A fixed-width column the filters did not read, of a zone planned `kept`: read with its values
//! left packed and decoded as the scan hands DuckDB a filtered vector.
void AddKeptBlocks(vtx::InputSource &reader, const vtx::FileMetadata &meta, size_t zone, const vtx::ColumnType &type,
                   idx_t field, const uint8_t *selected, const KeptBlocks &kept, vtx::DecodedColumn &chunk,
                   AggregateState &state, const std::string &path) {
	constexpr uint64_t kBlock = KeptBlocks::kBlock;
	try {
		vtx::ReadChunk(reader, meta, zone, field, chunk, nullptr, nullptr, true);
		if (!chunk.deferred.encoding) {
			state.AddDecoded(chunk, selected); // decoded whole where the encoding cannot defer
			return;
		}
		alignas(16) uint8_t values[kBlock * 16];
		uint32_t rows[kBlock];
		vtx::DecodedColumn block;
		block.values = values;
		block.all_valid = chunk.all_valid;
		for (uint64_t k = 0; k < kept.kept.size(); k++) {
			const uint64_t b = k * kBlock, m = std::min(kBlock, chunk.count - b);
			const uint32_t n = kept.kept[k];
			if (n == 0) {
				continue;
			}
			if (n * KeptBlocks::kFewRowsFraction <= m) {
				vtx::compute::SelectedRows(selected + b, static_cast<uint32_t>(m), rows);
				vtx::DecodeRowsAt(type, chunk, b, rows, n, values);
				block.count = n;
				if (!chunk.all_valid) {
					block.validity.assign((n + 63) / 64, 0);
					for (uint32_t j = 0; j < n; j++) {
						block.validity[j / 64] |= uint64_t(chunk.IsValid(b + rows[j])) << (j % 64);
					}
				}
				state.AddDecoded(block);
				continue;
			}
			vtx::DecodeRows(type, chunk, b, b + m, values);
			block.count = m;
			if (!chunk.all_valid) { // b is a multiple of 64: whole words line up
				block.validity.assign(chunk.validity.begin() + static_cast<std::ptrdiff_t>(b / 64),
				                      chunk.validity.begin() + static_cast<std::ptrdiff_t>((b + m + 63) / 64));
			}
			state.AddDecoded(block, selected + b);
		}
	} catch (vtx::FormatError &e) {
		ThrowFileError(path, e);
	}
}

//! Decodes, filters and aggregates one straddling zone into `acc`: a zone whose expression
//! filters turn out to hold on every row (decided per dictionary entry) is added whole.
void AccumulateStraddling(const PushedBindData &bind, const std::vector<PlannedFile> &files, const StraddlingZone &item,
                          Accumulation &acc, EntryAccumulation &entries, ZoneFilter &filter,
                          vtx::compute::ZoneMask &mask) {
	auto &file = files[item.file];
	auto &meta = *file.meta;
	auto &path = bind.files[item.file].path;
	// Every column read below, in as few requests as the zone's layout allows on a remote file:
	// the filter's and the aggregates', though rows passing none would leave the latter unread (a
	// request costs more).
	ZoneFetch fetch(*file.source);
	if (file.source->Remote()) {
		auto &zone = meta.zones[item.zone];
		std::vector<idx_t> fields;
		if (!item.whole) {
			filter.Fields(item.matches, fields);
		}
		for (auto &entry : acc.states) {
			if (!item.whole || !entry.second.Suffices(bind.Chunk(zone, entry.first).stats)) {
				fields.push_back(entry.first);
			}
		}
		for (auto f : fields) { // a field listed twice lists its segments twice: Fetch merges them
			fetch.Add(bind.Chunk(zone, f), bind.FieldType(f));
		}
	}
	auto &reader = fetch.Fetch(path);
	if (item.whole) {
		AddWholeZone(bind, reader, meta, item.zone, path, acc);
		return;
	}
	// Decode buffers are kept per thread: fresh zone-sized buffers cost a page fault per page.
	thread_local std::map<idx_t, vtx::DecodedColumn> buffers;
	if (buffers.size() > 64) {
		buffers.clear(); // before any is handed out below
	}
	std::map<idx_t, const vtx::DecodedColumn *> decoded;
	// A column the filters did not need is read after them: with `rows`, only those rows' blocks.
	auto column = [&](idx_t field, const vtx::RowRange *rows = nullptr) -> const vtx::DecodedColumn & {
		auto it = decoded.find(field);
		if (it != decoded.end()) {
			return *it->second;
		}
		auto &chunk = buffers[field];
		decoded[field] = &chunk;
		try {
			bind.Read(reader, meta, item.zone, field, chunk, rows);
		} catch (vtx::FormatError &e) {
			ThrowFileError(path, e);
		}
		return chunk;
	};
	// A column only predicates read is read with its values left packed (runs, dictionary codes):
	// the predicate is then evaluated once per run or entry, where the scan under DuckDB's own
	// aggregate did the same (sweep: `count(*) WHERE c1 = 0.25 AND c1 <> 1.25` over run-length
	// doubles, 10M rows, pushed 7.5 ms against 2.4 ms off).
	auto filtered = [&](idx_t field) -> const vtx::DecodedColumn & {
		if (acc.states.count(field) || std::find(entries.fields.begin(), entries.fields.end(), field) != entries.fields.end() ||
		    !filter.OnlyPredicatesRead(field) || decoded.count(field)) {
			return column(field);
		}
		auto &chunk = buffers[~field]; // apart from the decoded buffers (a field is both, zone to zone)
		decoded[field] = &chunk;
		try {
			vtx::ReadChunk(reader, meta, item.zone, field, chunk, nullptr, nullptr, true);
		} catch (vtx::FormatError &e) {
			ThrowFileError(path, e);
		}
		return chunk;
	};
	const auto match = filter.Filter(meta.zones[item.zone], item.file, item.matches, filtered, mask);
	if (match == ZoneMatch::NONE) {
		return;
	}
	if (match == ZoneMatch::ALL) {
		AddWholeZone(bind, reader, meta, item.zone, path, acc);
		return;
	}
	const uint64_t rows = meta.zones[item.zone].rows;
	const uint8_t *keep = nullptr;
	const auto *coded = mask.Entries(keep);
	if (coded && entries.Takes(*coded, rows)) {
		entries.zones++;
		std::vector<const vtx::DecodedColumn *> values;
		for (auto field : entries.fields) {
			values.push_back(&column(field));
		}
		entries.by_entry->AddKeptEntries(*coded, keep, values);
		return;
	}
	const uint8_t *selected_rows = mask.Rows();
	const auto selection = vtx::compute::Summarize(selected_rows, rows);
	acc.rows += selection.selected;
	if (selection.selected == 0) {
		return;
	}
	// A filter on a sorted column selects one run of rows: the aggregates then read that run
	// where it lies, with no copy through the mask.
	const vtx::RowRange run {selection.first, selection.end};
	thread_local KeptBlocks kept;
	bool planned = false;
	auto by_blocks = [&](idx_t field) { // planned once a zone, for the first column that could be
		const auto width = field < bind.fields.size() ? bind.fields[field].type.ByteWidth() : 0;
		if (decoded.count(field) || width == 0 || width > 16) {
			return false;
		}
		if (!planned) {
			kept.Plan(selected_rows, rows, selection.selected);
			planned = true;
		}
		return kept.worth;
	};
	for (auto &entry : acc.states) {
		if (selection.OneRun()) {
			entry.second.AddDecodedRange(column(entry.first, &run), selection.first, selection.end);
		} else if (by_blocks(entry.first)) {
			AddKeptBlocks(reader, meta, item.zone, bind.fields[entry.first].type, entry.first, selected_rows, kept,
			              buffers[~entry.first], entry.second, path);
		} else {
			entry.second.AddDecoded(column(entry.first), selected_rows);
		}
	}
	// Bounded: buffers beyond 32 MiB are given back.
	for (auto &entry : buffers) {
		auto &c = entry.second;
		if (c.fixed.capacity() + c.buffer.capacity() + c.strings.capacity() * sizeof(vtx::StringRef) > (size_t(32) << 20)) {
			c = vtx::DecodedColumn();
		}
	}
}

struct PushedGlobalState : public GlobalTableFunctionState {
	vector<column_t> column_ids;
	ZoneCounters zones;
	std::vector<PlannedFile> files;
	std::vector<StraddlingZone> straddling; //! decoded by the scan threads
	std::atomic<idx_t> next {0};
	std::atomic<idx_t> by_entry {0}; //! straddling zones aggregated per dictionary entry
	idx_t max_threads = 1;
	std::mutex lock;
	Accumulation acc; //! everything so far (under lock once threads run)
	idx_t registered = 0, finished = 0;
	bool emitted = false;

	idx_t MaxThreads() const override {
		return max_threads;
	}
};

struct PushedLocalState : public LocalTableFunctionState {
	PushedLocalState(ClientContext &context, const PushedBindData &bind)
	    : filter(context, bind.filters, bind.expressions, bind.fields, bind.field_types, bind.file_columns, bind.files,
	             bind.Columns()) {
		mask.DeferEntries();
	}
	idx_t id = 0; //! registration order: this thread's batch index
	Accumulation partial;
	std::unique_ptr<EntryAccumulation> entries; //! over `partial`'s states
	ZoneFilter filter;
	vtx::compute::ZoneMask mask;
	bool done = false;
};

//! A state for `field` that needs nothing yet, whose decoded rows are hashed with DuckDB's hash
//! where approx_count_distinct needs them.
AggregateState NewState(const PushedBindData &bind, idx_t field) {
	AggregateState state(bind.FieldType(field));
	state.needs_minmax = state.needs_sum = false;
	const auto type = bind.FieldType(field);
	state.sketch_rows = [type](const vtx::DecodedColumn &chunk, const uint8_t *selected, uint64_t begin, uint64_t end,
	                           Sketch &registers) {
		HyperLogLog hll;
		MergeRegisters(hll, registers);
		SketchDecoded(chunk, type, selected, hll, begin, end);
		registers = RegistersOf(hll);
	};
	return state;
}

//! Accumulates the aggregates over every file: zones where every row passes the filters
//! contribute their statistics (decoded only where those cannot answer, e.g. truncated string
//! bounds), zones where none does are skipped, and straddling zones are listed for the scan
//! threads, which decode (only the filter and aggregate columns), filter, and aggregate them.
void Accumulate(ClientContext &context, const PushedBindData &bind, PushedGlobalState &g) {
	auto &acc = g.acc;
	auto &counters = g.zones;
	for (auto &a : bind.aggregates) {
		if (a.kind == AggregateKind::COUNT_STAR) {
			continue;
		}
		auto &state = acc.states.emplace(a.field, NewState(bind, a.field)).first->second;
		state.needs_minmax |= Needs(a.kind, kNeedsMinMax);
		state.needs_sum |= Needs(a.kind, kNeedsSum);
		state.needs_distinct |= Needs(a.kind, kNeedsDistinct);
		state.needs_sketch |= Needs(a.kind, kNeedsSketch);
	}
	auto &files = g.files;
	auto &straddling = g.straddling;
	ZoneFilter filter(context, bind.filters, bind.expressions, bind.fields, bind.field_types, bind.file_columns, bind.files,
	                  bind.Columns());
	std::vector<ZoneMatch> matches;
	files = OpenPlannedFiles(context, bind.files, bind.fields, bind.field_types);
	for (idx_t f = 0; f < bind.files.size(); f++) {
		auto &source = *files[f].source;
		auto &meta = files[f].meta;
		for (auto &entry : acc.states) {
			if (entry.second.needs_sketch) {
				VerifySummaries(source, *meta, entry.first, Summary::SKETCH, bind.files[f].path);
			}
			if (entry.second.needs_distinct) {
				VerifySummaries(source, *meta, entry.first, Summary::DISTINCT, bind.files[f].path);
			}
		}
		for (size_t z = 0; z < meta->zones.size(); z++) {
			auto &zone = meta->zones[z];
			if (zone.rows == 0) {
				continue;
			}
			const ZoneMatch match = filter.Classify(zone, f, matches);
			if (match == ZoneMatch::NONE) {
				counters.skipped++;
				continue;
			}
			if (match == ZoneMatch::SOME) {
				counters.decoded++;
				straddling.push_back(StraddlingZone {f, z, matches});
				continue;
			}
			if (!StatsAnswer(bind, zone, acc)) {
				// Decoded on every scan thread, as straddling zones are (a distinct count over
				// zones that keep no list of values decodes them all).
				counters.decoded++;
				straddling.push_back(StraddlingZone {f, z, {}, true});
				continue;
			}
			AddWholeZone(bind, source, *meta, z, bind.files[f].path, acc);
			counters.from_stats++;
		}
	}
	g.max_threads =
	    std::max<idx_t>(1, std::min<idx_t>(straddling.size(), TaskScheduler::GetScheduler(context).NumberOfThreads()));
}

unique_ptr<GlobalTableFunctionState> PushedInit(ClientContext &context, TableFunctionInitInput &input) {
	auto &bind = input.bind_data->Cast<PushedBindData>();
	auto g = make_uniq<PushedGlobalState>();
	g->column_ids = input.column_ids;
	Accumulate(context, bind, *g);
	return std::move(g);
}

unique_ptr<LocalTableFunctionState> PushedInitLocal(ExecutionContext &context, TableFunctionInitInput &input,
                                                    GlobalTableFunctionState *gstate) {
	auto &g = gstate->Cast<PushedGlobalState>();
	auto l = make_uniq<PushedLocalState>(context.client, input.bind_data->Cast<PushedBindData>());
	for (auto &entry : g.acc.states) {
		AggregateState partial = NewState(input.bind_data->Cast<PushedBindData>(), entry.first);
		partial.needs_minmax = entry.second.needs_minmax;
		partial.needs_sum = entry.second.needs_sum;
		partial.needs_distinct = entry.second.needs_distinct;
		partial.needs_sketch = entry.second.needs_sketch;
		l->partial.states.emplace(entry.first, std::move(partial));
	}
	l->entries = std::make_unique<EntryAccumulation>(l->partial);
	std::lock_guard<std::mutex> guard(g.lock);
	l->id = g.registered++;
	return std::move(l);
}

//! Each thread aggregates straddling zones into its own partial; the last one to finish merges
//! into the whole and emits the one row (a thread that starts after that finds nothing to do).
void PushedScan(ClientContext &, TableFunctionInput &data, DataChunk &output) {
	auto &bind = data.bind_data->Cast<PushedBindData>();
	auto &g = data.global_state->Cast<PushedGlobalState>();
	auto &l = data.local_state->Cast<PushedLocalState>();
	if (l.done) {
		return;
	}
	while (true) {
		auto idx = g.next.fetch_add(1);
		if (idx >= g.straddling.size()) {
			break;
		}
		AccumulateStraddling(bind, g.files, g.straddling[idx], l.partial, *l.entries, l.filter, l.mask);
	}
	l.entries->Into(l.partial);
	g.by_entry += l.entries->zones;
	l.done = true;
	std::lock_guard<std::mutex> guard(g.lock);
	g.acc.rows += l.partial.rows;
	for (auto &entry : l.partial.states) {
		g.acc.states.at(entry.first).Merge(entry.second);
	}
	g.finished++;
	if (g.finished != g.registered || g.emitted) {
		return;
	}
	g.emitted = true;
	vector<Value> all;
	for (auto &a : bind.aggregates) {
		const bool star = a.kind == AggregateKind::COUNT_STAR;
		Vector finished(a.result_type, 1);
		SpecOf(a.kind).finalize(a, AccumulatedOf(a, star ? nullptr : &g.acc.states.at(a.field), g.acc.rows,
		                                         star ? nullptr : &bind.FieldLogicalType(a.field)),
		                        finished, 0);
		all.push_back(finished.GetValue(0));
	}
	for (idx_t c = 0; c < g.column_ids.size(); c++) {
		output.SetValue(c, 0, g.column_ids[c] < all.size() ? all[g.column_ids[c]] : Value());
	}
	output.SetCardinality(1);
}

//! One batch per thread: lets DuckDB run the scan on several threads where it preserves order
//! (only one thread ever emits the row).
OperatorPartitionData PushedPartitionData(ClientContext &, TableFunctionGetPartitionInput &input) {
	return OperatorPartitionData(input.local_state->Cast<PushedLocalState>().id);
}

unique_ptr<NodeStatistics> PushedCardinality(ClientContext &, const FunctionData *) {
	return make_uniq<NodeStatistics>(1, 1);
}

InsertionOrderPreservingMap<string> PushedToString(TableFunctionToStringInput &input) {
	InsertionOrderPreservingMap<string> result;
	auto &bind = input.bind_data->Cast<PushedBindData>();
	string list;
	for (auto &a : bind.aggregates) {
		list += (list.empty() ? "" : "\n") + a.display;
	}
	result["Pushed Aggregates"] = list;
	result["Files"] = std::to_string(bind.files.size());
	auto filters = FiltersText(bind.filters, bind.expressions, bind.file_filters);
	if (!filters.empty()) {
		result["Filters"] = filters;
	}
	return result;
}

InsertionOrderPreservingMap<string> PushedDynamicToString(TableFunctionDynamicToStringInput &input) {
	InsertionOrderPreservingMap<string> result;
	if (input.global_state) {
		// EXPLAIN ANALYZE heads every table function's box TABLE_SCAN; say which one ran, as
		// DuckDB does for read_parquet.
		result["Function"] = "VORTEX_SCAN_AGGREGATE";
		auto &g = input.global_state->Cast<PushedGlobalState>();
		g.zones.Show(result);
		if (g.by_entry) {
			result["Zones Aggregated Per Dictionary Entry"] = std::to_string(g.by_entry.load());
		}
	}
	return result;
}

} // namespace

std::string FiltersText(const std::vector<PushedFilter> &filters, const std::vector<ExpressionFilter> &expressions,
                        const std::vector<std::string> &file_filters) {
	std::string text;
	for (auto &f : filters) {
		text += (text.empty() ? "" : "\n") + f.display;
	}
	for (auto &f : expressions) {
		text += (text.empty() ? "" : "\n") + f.display;
	}
	for (auto &f : file_filters) {
		text += (text.empty() ? "" : "\n") + f;
	}
	return text;
}

Accumulated AccumulatedOf(const PushedAggregate &a, const AggregateState *s, uint64_t rows, const LogicalType *stored) {
	Accumulated in;
	in.rows = rows;
	in.state = s;
	in.stored = stored;
	if (s) {
		KernelOptions o;
		o.skip_nans = a.skip_nans;
		in.values = vtx::compute::CountValues(*s, o);
		in.integer = s->int_sum;
	}
	return in;
}

namespace {

void PushedSerialize(Serializer &s, const optional_ptr<FunctionData> bind_p, const TableFunction &) {
	auto &bind = bind_p->Cast<PushedBindData>();
	SerializeFiles(s, 100, bind.files);
	SerializeFields(s, 101, bind.fields, bind.field_types); // 101, 102
	SerializeLeaves(s, 103, bind.leaves);
	SerializeAggregates(s, 104, bind.aggregates);
	SerializeFilters(s, 105, bind.filters);
	s.WriteProperty<vector<string>>(106, "file_filters", vector<string>(bind.file_filters.begin(), bind.file_filters.end()));
	SerializeExpressionFilters(s, 107, bind.expressions);
	SerializeFileColumns(s, 108, bind.file_columns); // 108-112
}

unique_ptr<FunctionData> PushedDeserialize(Deserializer &d, TableFunction &) {
	auto bind = make_uniq<PushedBindData>();
	bind->files = DeserializeFiles(d, 100);
	DeserializeFields(d, 101, bind->fields, bind->field_types);
	bind->leaves = DeserializeLeaves(d, 103);
	bind->aggregates = DeserializeAggregates(d, 104);
	bind->filters = DeserializeFilters(d, 105);
	auto file_filters = d.ReadProperty<vector<string>>(106, "file_filters");
	bind->file_filters.assign(file_filters.begin(), file_filters.end());
	bind->expressions = DeserializeExpressionFilters(d, 107);
	bind->file_columns = DeserializeFileColumns(d, 108);
	return std::move(bind);
}

} // namespace

TableFunction GetPushedAggregateFunction() {
	// Its own name, so that a serialized plan finds it again in the catalog (extension.cpp
	// registers it); EXPLAIN shows it as VORTEX_SCAN_AGGREGATE.
	TableFunction tf("vortex_scan_aggregate", {}, PushedScan, RefusePlantedBind, PushedInit, PushedInitLocal);
	tf.serialize = PushedSerialize;
	tf.deserialize = PushedDeserialize;
	tf.cardinality = PushedCardinality;
	tf.get_partition_data = PushedPartitionData;
	tf.to_string = PushedToString;
	tf.dynamic_to_string = PushedDynamicToString;
	tf.projection_pushdown = true;
	return tf;
}

} // namespace vortex
