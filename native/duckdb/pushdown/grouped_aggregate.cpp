#include "grouped_aggregate.hpp"

#include "../../compute/grouped_aggregation.hpp"
#include "../../compute/predicate.hpp"
#include "../../compute/selection.hpp"
#include "../../compute/zone_mask.hpp"
#include "../../format/encodings/encoding.hpp"
#include "../../format/file/reader.hpp"
#include "plan.hpp"
#include "bucket_keys.hpp"
#include "plan_serialization.hpp"
#include "sorted_grouped_scan.hpp"
#include "verified_summaries.hpp"
#include "zone_filters.hpp"
#include "../type_mapping.hpp"
#include "../zone_fetch.hpp"
#include "duckdb/execution/expression_executor.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>

namespace vortex {

using namespace duckdb;
using vtx::compute::AggregateState;
using vtx::compute::GroupedAggregation;
using vtx::compute::ZoneMatch;

unique_ptr<FunctionData> GroupedBindData::Copy() const {
	auto r = make_uniq<GroupedBindData>();
	r->files = files;
	r->fields = fields;
	r->field_types = field_types;
	r->keys = keys;
	r->hive = hive;
	for (auto &t : key_transforms) { // expressions: the members that are not copyable
		r->key_transforms.push_back(t ? t->Copy() : nullptr);
	}
	for (auto &b : key_buckets) {
		r->key_buckets.push_back(b ? b->Copy() : nullptr);
	}
	r->bucket_display = bucket_display;
	r->bucket_monotone = bucket_monotone;
	r->aggregates = aggregates;
	r->filters = filters;
	r->expressions = expressions;
	r->file_columns = file_columns;
	r->file_filters = file_filters;
	r->order = order;
	r->sorted = sorted;
	return std::move(r);
}

bool GroupedBindData::Equals(const FunctionData &other_p) const {
	auto &o = other_p.Cast<GroupedBindData>();
	if (keys != o.keys || order != o.order || sorted != o.sorted || aggregates != o.aggregates || filters != o.filters || field_types != o.field_types ||
	    !SameFilters(expressions, o.expressions) || file_columns.hive.values != o.file_columns.hive.values ||
	    hive.keys != o.hive.keys || hive.types != o.hive.types || hive.values != o.hive.values ||
	    key_transforms.size() != o.key_transforms.size() || !SamePlannedFiles(files, o.files)) {
		return false;
	}
	if (key_buckets.size() != o.key_buckets.size() || bucket_monotone != o.bucket_monotone) {
		return false;
	}
	for (size_t k = 0; k < key_transforms.size(); k++) {
		auto &a = key_transforms[k], &b = o.key_transforms[k];
		if (bool(a) != bool(b) || (a && !a->Equals(*b))) {
			return false;
		}
	}
	for (size_t k = 0; k < key_buckets.size(); k++) {
		auto &a = key_buckets[k], &b = o.key_buckets[k];
		if (bool(a) != bool(b) || (a && !a->Equals(*b))) {
			return false;
		}
	}
	return true;
}

const vtx::DecodedColumn &ZoneDecoder::operator()(idx_t field) {
	auto it = decoded.find(field);
	if (it != decoded.end()) {
		return *it->second;
	}
	auto &chunk = buffers[field];
	try {
		vtx::ReadChunk(reader, *file.meta, zone, field, chunk);
	} catch (vtx::FormatError &e) {
		ThrowFileError(path, e);
	}
	decoded[field] = &chunk;
	return chunk;
}

const vtx::DecodedColumn &ZoneDecoder::Coded(idx_t field) {
	auto &chunk = file.meta->zones[zone].chunks[field];
	if (decoded.count(field) || chunk.encoding != static_cast<uint8_t>(vtx::Encoding::DICTIONARY)) {
		return (*this)(field);
	}
	auto it = coded.find(field);
	if (it != coded.end()) {
		return *it->second;
	}
	// Buffers of coded chunks are kept apart from decoded ones (a field's are both, zone to zone).
	auto &out = buffers[~field];
	try {
		vtx::ReadChunk(reader, *file.meta, zone, field, out, nullptr, nullptr, true);
		if (out.deferred.encoding == static_cast<uint8_t>(vtx::Encoding::DICTIONARY)) {
			out.codes.resize(out.count);
			vtx::DecodeCodes(out, 0, out.count, out.codes.data());
		} else if (out.deferred.encoding != 0) {
			return (*this)(field); // left packed otherwise: decoded as usual
		}
	} catch (vtx::FormatError &e) {
		ThrowFileError(path, e);
	}
	coded[field] = &out;
	return out;
}

//! The filters of a grouped scan over its plain file columns.
ZoneFilter GroupedFilterOf(ClientContext &context, const GroupedBindData &bind) {
	FilterColumns columns;
	columns.type = [&bind](idx_t field) -> const vtx::ColumnType & { return bind.fields[field].type; };
	columns.stats = [](const vtx::ZoneMeta &zone, idx_t field) -> const vtx::ZoneStats & { return zone.chunks[field].stats; };
	return ZoneFilter(context, bind.filters, bind.expressions, bind.fields, bind.field_types, bind.file_columns, bind.files,
	                  std::move(columns));
}

namespace {

//! The value columns the aggregates read, each once, and what each needs beyond counts.
struct ValueColumns {
	std::vector<idx_t> fields;
	std::vector<bool> needs_minmax, needs_sum, needs_distinct;
	std::map<idx_t, idx_t> slot; //! field -> position in `fields`

	explicit ValueColumns(const std::vector<PushedAggregate> &aggregates) {
		for (auto &a : aggregates) {
			if (a.kind == AggregateKind::COUNT_STAR) {
				continue;
			}
			if (!slot.count(a.field)) {
				slot[a.field] = fields.size();
				fields.push_back(a.field);
				needs_minmax.push_back(false);
				needs_sum.push_back(false);
				needs_distinct.push_back(false);
			}
			auto v = slot[a.field];
			needs_minmax[v] = needs_minmax[v] || Needs(a.kind, kNeedsMinMax);
			needs_sum[v] = needs_sum[v] || Needs(a.kind, kNeedsSum);
			needs_distinct[v] = needs_distinct[v] || Needs(a.kind, kNeedsDistinct);
		}
	}
};

//! A hive key's value in file `f`, as the bytes of its text (hive values are text in paths).
void HiveKey(const GroupedBindData &bind, idx_t f, idx_t column, bool &is_null, std::string &key) {
	auto &v = bind.hive.values[f][column - bind.fields.size()];
	is_null = v.IsNull();
	key = is_null ? std::string() : v.ToString();
}

//! A decoded column of `rows` copies of file `f`'s hive key (its text, kept in `text`).
void ConstantColumn(const GroupedBindData &bind, idx_t f, idx_t column, uint64_t rows, std::string &text,
                    vtx::DecodedColumn &out) {
	bool is_null;
	HiveKey(bind, f, column, is_null, text);
	out.count = rows;
	out.all_null = is_null;
	out.all_valid = !is_null;
	out.dictionary.clear();
	out.codes.clear();
	// A one-entry dictionary: the key is looked at once, not per row.
	if (!is_null) {
		out.dictionary.assign(1, vtx::StringRef {text.data(), static_cast<uint32_t>(text.size())});
		out.codes.assign(rows, 0);
	}
}

//! A zone whose rows must be decoded: its keys are not constant, or it straddles a filter.
struct ZoneWork {
	idx_t file;
	idx_t zone;
	ZoneMatch match;
	std::vector<ZoneMatch> matches; //! per filter: those that hold on every row are not evaluated
};

struct GroupedGlobalState : public GlobalTableFunctionState {
	GroupedGlobalState(ValueColumns values_p, std::vector<vtx::ColumnType> key_types_p,
	                   std::vector<vtx::ColumnType> value_types_p)
	    : values(std::move(values_p)), key_types(std::move(key_types_p)), value_types(std::move(value_types_p)),
	      groups(NewAccumulation()) {
	}
	GroupedAggregation NewAccumulation() const {
		return GroupedAggregation(key_types, value_types, values.needs_minmax, values.needs_sum, values.needs_distinct);
	}
	idx_t MaxThreads() const override {
		return max_threads;
	}

	ValueColumns values;
	std::vector<vtx::ColumnType> key_types, value_types;
	vector<column_t> column_ids;
	std::vector<PlannedFile> files;
	std::vector<ZoneWork> work; //! decoded by the scan threads
	std::atomic<idx_t> next_work {0};
	//! Zones a thread takes at a time, consecutive: where keys are clustered (days of sorted
	//! event times) a key's rows then mostly land in one thread, and its distinct set is built
	//! once instead of once per thread and merged.
	idx_t block = 1;
	idx_t max_threads = 1;
	std::mutex lock;
	GroupedAggregation groups; //! zones answered from statistics, then each thread's partial (under lock)
	ZoneCounters zones;
	idx_t registered = 0, finished = 0;
	bool emitted = false;
	std::vector<vector<Value>> rows; //! per group: the projected columns, once every thread is done
	idx_t next_row = 0;
};

ZoneFilter FilterOf(ClientContext &context, const GroupedBindData &bind) {
	return GroupedFilterOf(context, bind);
}

//! Per key: an evaluator of its bucket function, or null (bucket_keys.hpp).
std::vector<std::unique_ptr<BucketEvaluator>> BucketsOf(ClientContext &context, const GroupedBindData &bind) {
	std::vector<std::unique_ptr<BucketEvaluator>> out;
	for (idx_t k = 0; k < bind.keys.size(); k++) {
		out.push_back(bind.key_buckets[k] ? std::make_unique<BucketEvaluator>(context, *bind.key_buckets[k],
		                                                                       bind.fields[bind.keys[k]].type,
		                                                                       bind.bucket_monotone[k])
		                                  : nullptr);
	}
	return out;
}

//! A bucket key's one value over a zone, where the statistics of its column prove it: all
//! NULL, one value, or min and max with one key between them (BucketEvaluator::OneKey).
bool ConstantBucket(const GroupedBindData &bind, idx_t k, BucketEvaluator &bucket, const vtx::ZoneStats &stats,
                    bool &is_null, std::string &key) {
	auto &type = bind.fields[bind.keys[k]].type;
	auto &logical = bind.field_types[bind.keys[k]];
	Value result;
	if (stats.rows > 0 && stats.nulls == stats.rows) {
		if (!bucket.Apply(Value(logical), result)) {
			return false;
		}
	} else if (stats.nulls > 0 || !stats.has_minmax || !stats.minmax_exact || type.IsFloat()) {
		return false;
	} else {
		auto min = RawToValue(logical, stats.min);
		if (!bucket.OneKey(min, RawToValue(logical, stats.max)) || !bucket.Apply(min, result)) {
			return false;
		}
	}
	is_null = result.IsNull();
	key.clear();
	return is_null || ValueToRaw(bind.KeyType(k), result, key);
}

struct GroupedLocalState : public LocalTableFunctionState {
	GroupedLocalState(GroupedAggregation partial_p, ZoneFilter filter_p, std::vector<std::unique_ptr<BucketEvaluator>> buckets_p)
	    : partial(std::move(partial_p)), filter(std::move(filter_p)), buckets(std::move(buckets_p)) {
	}
	idx_t id = 0; //! registration order: this thread's batch index
	GroupedAggregation partial;
	ZoneFilter filter;
	std::vector<std::unique_ptr<BucketEvaluator>> buckets;
	std::vector<vtx::DecodedColumn> bucket_columns; //! per key: its buckets over the current zone
	//! Per key with a bucket: the bucket as a function of distinct values (KeyPerValue), and per key
	//! of the current zone, that function where it is used.
	std::vector<vtx::compute::KeyFunction> key_functions;
	std::vector<const vtx::compute::KeyFunction *> functions;
	std::vector<bool> codes; //! per key of the current zone: ReadAsCodes
	std::vector<uint64_t> run_starts;               //! SortedKeyRuns of the current zone
	std::vector<std::string> run_keys;
	//! Decode buffers reused from zone to zone: fresh zone-sized buffers cost a page fault per page.
	std::map<idx_t, vtx::DecodedColumn> buffers;
	std::vector<std::string> hive_text;
	vtx::compute::ZoneMask mask; //! rows of a straddling zone that pass every filter
	bool done = false;
	bool emitting = false; //! the thread that merged last emits every row
};

//! Lists the zones of file `f` that need decoding; the others are answered from statistics
//! (into `groups`) or skipped.
void PlanFile(const GroupedBindData &bind, idx_t f, const vtx::FileMetadata &meta, const ValueColumns &values,
              ZoneFilter &filter, std::vector<std::unique_ptr<BucketEvaluator>> &buckets, GroupedAggregation &groups,
              std::vector<ZoneWork> &work, ZoneCounters &counters) {
	std::vector<bool> key_null(bind.keys.size());
	std::vector<std::string> key(bind.keys.size());
	std::vector<const vtx::ZoneStats *> stats;
	std::vector<ZoneMatch> matches;
	// Hive keys: one value per file, its text made once.
	for (idx_t k = 0; k < bind.keys.size(); k++) {
		if (bind.IsHive(bind.keys[k])) {
			bool is_null = false;
			HiveKey(bind, f, bind.keys[k], is_null, key[k]);
			key_null[k] = is_null;
		}
	}
	for (idx_t z = 0; z < meta.zones.size(); z++) {
		auto &zone = meta.zones[z];
		if (zone.rows == 0) {
			continue;
		}
		// The filter first: a zone it skips costs no bucket evaluation (a query over the last day
		// of a long file skips nearly every zone).
		const auto match = filter.Classify(zone, f, matches);
		if (match == ZoneMatch::NONE) {
			counters.skipped++;
			continue;
		}
		bool constant = true;
		for (idx_t k = 0; constant && k < bind.keys.size(); k++) {
			bool is_null = false;
			if (buckets[k]) {
				constant = ConstantBucket(bind, k, *buckets[k], zone.chunks[bind.keys[k]].stats, is_null, key[k]);
				key_null[k] = is_null;
			} else if (!bind.IsHive(bind.keys[k])) {
				constant = GroupedAggregation::ConstantKey(bind.fields[bind.keys[k]].type,
				                                           zone.chunks[bind.keys[k]].stats, is_null, key[k]);
				key_null[k] = is_null;
			}
		}
		constant = constant && match == ZoneMatch::ALL;
		stats.clear();
		for (idx_t v = 0; constant && v < values.fields.size(); v++) {
			auto &s = zone.chunks[values.fields[v]].stats;
			constant = AggregateState::StatsSuffice(s, values.needs_minmax[v], values.needs_sum[v], false,
			                                        values.needs_distinct[v]);
			stats.push_back(&s);
		}
		if (constant) {
			groups.AddZone(key_null, key, zone.rows, stats);
			counters.from_stats++;
		} else {
			work.push_back(ZoneWork {f, z, match, matches});
			counters.decoded++;
		}
	}
}

//! Runs shorter than this on average cost more as a group lookup each than the per-row path.
constexpr uint64_t kMinAverageRun = 64;

//! A bucket key is applied once per distinct value of its column, not per row, where the zone
//! has at most one value per this many rows.
constexpr uint64_t kRowsPerValue = 8;

//! Whether a key's column is read as its dictionary's codes (ZoneDecoder::Coded), which are group
//! ids as they are: a fixed-width dictionary chunk that no aggregate reads the values of, and for
//! a bucket key, whose bucket is then applied per entry, of few entries.
bool ReadAsCodes(const GroupedGlobalState &g, const GroupedBindData &bind, idx_t i, const vtx::ChunkMeta &chunk,
                 uint64_t rows) {
	const auto k = bind.keys[i];
	auto &type = bind.fields[k].type;
	return !bind.IsHive(k) && type.ByteWidth() > 0 && chunk.encoding == static_cast<uint8_t>(vtx::Encoding::DICTIONARY) &&
	       std::find(g.values.fields.begin(), g.values.fields.end(), k) == g.values.fields.end() &&
	       (!bind.key_buckets[i] || vtx::compute::GroupedAggregation::KeysBound(type, chunk, rows) <= rows / kRowsPerValue);
}

//! Whether a bucket key's column takes few enough values in a zone to apply the bucket once per
//! value (vtx::compute::KeyFunction). A narrow exact range (the days of a few years) numbers its
//! values without hashing, and dictionary codes (`codes`, ReadAsCodes) are ids as they are: either
//! is cheaper than any per-row key. Values that must be hashed (a dictionary's values, decoded)
//! still beat DuckDB's executor per row, not the kernel's keys.
bool KeyPerValue(const BucketEvaluator &bucket, const vtx::ColumnType &type, const vtx::ChunkMeta &chunk,
                 uint64_t rows, bool codes) {
	if (type.ByteWidth() == 0) {
		return false;
	}
	if (codes) {
		return true;
	}
	const uint64_t most = rows / kRowsPerValue;
	const uint64_t range = vtx::compute::GroupedAggregation::RangeWidth(type, chunk.stats);
	if (range > 0 && range <= std::min<uint64_t>(most, uint64_t(1) << 16)) {
		return true;
	}
	return !bucket.HasKernel() && vtx::compute::GroupedAggregation::KeysBound(type, chunk, rows) <= most;
}

//! Decodes (each column once, even where a key column is also aggregated), filters and groups
//! one zone into the thread's partial accumulation.
void AccumulateZone(const GroupedBindData &bind, const GroupedGlobalState &g, const ZoneWork &item,
                    GroupedLocalState &l) {
	auto &zone = g.files[item.file].meta->zones[item.zone];
	auto &file = g.files[item.file];
	auto &meta = *file.meta;
	auto &path = bind.files[item.file].path;
	const uint64_t rows = meta.zones[item.zone].rows;
	// Every column read below, in as few requests as the zone's layout allows on a remote file:
	// the filter's too, though rows passing none would leave the others unread (a request costs more).
	ZoneFetch fetch(*file.source);
	if (file.source->Remote()) {
		std::vector<idx_t> fields;
		if (item.match == ZoneMatch::SOME) {
			l.filter.Fields(item.matches, fields);
		}
		for (auto k : bind.keys) {
			if (!bind.IsHive(k)) {
				fields.push_back(k);
			}
		}
		fields.insert(fields.end(), g.values.fields.begin(), g.values.fields.end());
		fetch.Add(meta, item.zone, fields);
	}
	ZoneDecoder column(file, item.zone, path, l.buffers, &fetch.Fetch(path));
	// Rows of a straddling zone that pass every filter (none: nothing to group; all: no mask).
	auto match = item.match;
	if (match == ZoneMatch::SOME) {
		match = l.filter.Filter(zone, item.file, item.matches,
		                        [&](idx_t field) -> const vtx::DecodedColumn & { return column(field); }, l.mask);
		if (match == ZoneMatch::NONE) {
			return;
		}
	}
	std::vector<const vtx::DecodedColumn *> key_columns, value_columns;
	// One bucket key over an ascending column, the rows kept one range (all of them, or what a
	// range filter on that column leaves): each key's rows are one range.
	const bool one_bucket = bind.keys.size() == 1 && l.buckets[0];
	l.codes.resize(bind.keys.size());
	for (idx_t i = 0; i < bind.keys.size(); i++) {
		l.codes[i] = ReadAsCodes(g, bind, i, zone.chunks[bind.keys[i]], rows);
	}
	vtx::compute::SelectionSummary kept;
	kept.selected = kept.end = rows;
	if (one_bucket && match == ZoneMatch::SOME) {
		kept = vtx::compute::Summarize(l.mask.Rows(), rows);
	}
	// (A dictionary's codes are cheaper than decoding its values to look for runs.)
	if (one_bucket && !l.codes[0] && kept.OneRun() &&
	    l.buckets[0]->SortedKeyRuns(column(bind.keys[0]), kept.first, kept.end, kMinAverageRun, l.run_starts,
	                                l.run_keys)) {
		for (auto v : g.values.fields) {
			value_columns.push_back(&column(v));
		}
		l.partial.AddRuns(l.run_starts, l.run_keys, kept.end, value_columns);
		return;
	}
	l.hive_text.resize(bind.keys.size());
	l.bucket_columns.resize(bind.keys.size());
	l.functions.assign(bind.keys.size(), nullptr);
	for (idx_t i = 0; i < bind.keys.size(); i++) {
		auto k = bind.keys[i];
		const vtx::DecodedColumn *coded = l.codes[i] ? &column.Coded(k) : nullptr;
		if (l.buckets[i] &&
		    KeyPerValue(*l.buckets[i], bind.fields[k].type, zone.chunks[k], rows, coded && !coded->codes.empty())) {
			l.functions[i] = &l.key_functions[i];
			key_columns.push_back(coded ? coded : &column(k));
		} else if (l.buckets[i]) {
			l.buckets[i]->ApplyColumn(column(k), l.bucket_columns[i], match == ZoneMatch::SOME ? l.mask.Rows() : nullptr);
			key_columns.push_back(&l.bucket_columns[i]);
		} else if (bind.IsHive(k)) {
			auto &chunk = l.buffers[k];
			ConstantColumn(bind, item.file, k, rows, l.hive_text[i], chunk);
			key_columns.push_back(&chunk);
		} else {
			key_columns.push_back(coded ? coded : &column(k));
		}
	}
	for (auto v : g.values.fields) {
		value_columns.push_back(&column(v));
	}
	l.partial.AddDecoded(key_columns, value_columns, match == ZoneMatch::SOME ? l.mask.Rows() : nullptr, l.functions);
}

//! Per key column, the value of every group's key, after the key's transform if it has one.
std::vector<vector<Value>> KeyValues(ClientContext &context, const GroupedBindData &bind,
                                     const std::vector<vtx::compute::GroupState> &groups) {
	std::vector<vector<Value>> out(bind.keys.size());
	for (idx_t k = 0; k < bind.keys.size(); k++) {
		const bool hive = !bind.key_buckets[k] && bind.IsHive(bind.keys[k]);
		auto &type = bind.KeyType(k);
		for (auto &g : groups) {
			out[k].push_back(g.key_null[k] ? Value(type)
			                 : hive       ? Value(g.keys[k]).DefaultCastAs(type)
			                              : RawToValue(type, g.keys[k]));
		}
		auto &transform = bind.key_transforms[k];
		if (!transform) {
			continue;
		}
		ExpressionExecutor executor(context, *transform);
		DataChunk in, result;
		in.Initialize(Allocator::Get(context), {type});
		result.Initialize(Allocator::Get(context), {transform->return_type});
		for (idx_t start = 0; start < groups.size(); start += STANDARD_VECTOR_SIZE) {
			idx_t n = std::min<idx_t>(STANDARD_VECTOR_SIZE, groups.size() - start);
			in.Reset();
			result.Reset();
			for (idx_t i = 0; i < n; i++) {
				in.SetValue(0, i, out[k][start + i]);
			}
			in.SetCardinality(n);
			executor.ExecuteExpression(in, result.data[0]);
			for (idx_t i = 0; i < n; i++) {
				out[k][start + i] = result.data[0].GetValue(i);
			}
		}
	}
	return out;
}

unique_ptr<GlobalTableFunctionState> GroupedInit(ClientContext &context, TableFunctionInitInput &input) {
	auto &bind = input.bind_data->Cast<GroupedBindData>();
	if (bind.sorted) {
		return SortedGroupsInit(context, input);
	}
	ValueColumns values(bind.aggregates);
	std::vector<vtx::ColumnType> key_types, value_types;
	for (idx_t i = 0; i < bind.keys.size(); i++) {
		auto k = bind.keys[i];
		vtx::ColumnType type;
		type.id = vtx::TypeId::VARCHAR; // hive keys: their text
		if (bind.key_buckets[i]) {
			ToColumnType(bind.key_buckets[i]->return_type, type);
		} else if (!bind.IsHive(k)) {
			type = bind.fields[k].type;
		}
		key_types.push_back(type);
	}
	for (auto v : values.fields) {
		value_types.push_back(bind.fields[v].type);
	}
	auto g = make_uniq<GroupedGlobalState>(std::move(values), std::move(key_types), std::move(value_types));
	g->column_ids = input.column_ids;
	auto filter = FilterOf(context, bind);
	auto buckets = BucketsOf(context, bind);
	g->files = OpenPlannedFiles(context, bind.files, bind.fields, bind.field_types);
	for (idx_t f = 0; f < bind.files.size(); f++) {
		for (idx_t v = 0; v < g->values.fields.size(); v++) {
			if (g->values.needs_distinct[v]) {
				VerifySummaries(*g->files[f].source, *g->files[f].meta, g->values.fields[v], Summary::DISTINCT,
				                bind.files[f].path);
			}
		}
		PlanFile(bind, f, *g->files[f].meta, g->values, filter, buckets, g->groups, g->work, g->zones);
	}
	g->max_threads =
	    std::max<idx_t>(1, std::min<idx_t>(g->work.size(), TaskScheduler::GetScheduler(context).NumberOfThreads()));
	// About eight blocks per thread: few keys split between threads, and the last block is short.
	g->block = std::max<idx_t>(1, g->work.size() / (8 * g->max_threads));
	return std::move(g);
}

unique_ptr<LocalTableFunctionState> GroupedInitLocal(ExecutionContext &context, TableFunctionInitInput &input,
                                                     GlobalTableFunctionState *gstate) {
	auto &bind = input.bind_data->Cast<GroupedBindData>();
	if (bind.sorted) {
		return SortedGroupsInitLocal(context, input, gstate);
	}
	auto &g = gstate->Cast<GroupedGlobalState>();
	auto l = make_uniq<GroupedLocalState>(g.NewAccumulation(), FilterOf(context.client, bind), BucketsOf(context.client, bind));
	l->key_functions.resize(bind.keys.size());
	for (idx_t i = 0; i < bind.keys.size(); i++) {
		if (auto *bucket = l->buckets[i].get()) {
			l->key_functions[i].input = bind.fields[bind.keys[i]].type;
			l->key_functions[i].apply = [bucket](const vtx::DecodedColumn &values, vtx::DecodedColumn &keys) {
				bucket->ApplyColumn(values, keys);
			};
		}
	}
	std::lock_guard<std::mutex> guard(g.lock);
	l->id = g.registered++;
	return std::move(l);
}

//! Every group's output row: keys (transformed back where DuckDB compressed them), then the
//! finished aggregates.
void BuildRows(ClientContext &context, const GroupedBindData &bind, GroupedGlobalState &g) {
	auto &groups = g.groups.Groups();
	auto key_values = KeyValues(context, bind, groups);
	// Finalized a vector of groups at a time, then taken apart into rows (which may yet be sorted).
	for (idx_t begin = 0; begin < groups.size(); begin += STANDARD_VECTOR_SIZE) {
		const idx_t end = MinValue<idx_t>(groups.size(), begin + STANDARD_VECTOR_SIZE);
		vector<Vector> finished;
		for (auto &a : bind.aggregates) {
			finished.emplace_back(a.result_type);
			const bool star = a.kind == AggregateKind::COUNT_STAR;
			for (idx_t gi = begin; gi < end; gi++) {
				auto &group = groups[gi];
				SpecOf(a.kind).finalize(a,
				                        AccumulatedOf(a, star ? nullptr : &group.values[g.values.slot.at(a.field)],
				                                      group.rows, star ? nullptr : &bind.field_types[a.field]),
				                        finished.back(), gi - begin);
			}
		}
		for (idx_t gi = begin; gi < end; gi++) {
			vector<Value> all;
			for (idx_t k = 0; k < bind.keys.size(); k++) {
				all.push_back(key_values[k][gi]);
			}
			for (auto &column : finished) {
				all.push_back(column.GetValue(gi - begin));
			}
			vector<Value> row;
			for (auto id : g.column_ids) {
				row.push_back(id < all.size() ? all[id] : Value());
			}
			g.rows.push_back(std::move(row));
		}
	}
	SortRows(g.rows, bind.order);
}

//! Each thread groups the zones it takes into its own partial; the last one to finish merges
//! into the whole and emits every group (a thread that starts after that finds nothing to do).
void GroupedScan(ClientContext &context, TableFunctionInput &data, DataChunk &output) {
	auto &bind = data.bind_data->Cast<GroupedBindData>();
	if (bind.sorted) {
		SortedGroupsScan(context, data, output);
		return;
	}
	auto &g = data.global_state->Cast<GroupedGlobalState>();
	auto &l = data.local_state->Cast<GroupedLocalState>();
	if (!l.done) {
		while (true) {
			const auto first = g.next_work.fetch_add(g.block);
			if (first >= g.work.size()) {
				break;
			}
			for (idx_t idx = first; idx < MinValue<idx_t>(first + g.block, g.work.size()); idx++) {
				AccumulateZone(bind, g, g.work[idx], l);
			}
		}
		l.done = true;
		l.buffers.clear();
		std::lock_guard<std::mutex> guard(g.lock);
		g.groups.Merge(std::move(l.partial));
		g.finished++;
		if (g.finished != g.registered || g.emitted) {
			return;
		}
		g.emitted = true;
		l.emitting = true;
		BuildRows(context, bind, g);
	}
	if (!l.emitting) {
		return;
	}
	idx_t count = 0;
	for (; g.next_row < g.rows.size() && count < STANDARD_VECTOR_SIZE; g.next_row++, count++) {
		auto &row = g.rows[g.next_row];
		for (idx_t c = 0; c < row.size(); c++) {
			output.SetValue(c, count, row[c]);
		}
	}
	output.SetCardinality(count);
}

//! One batch per thread: lets DuckDB run the scan on several threads where it preserves order
//! (only one thread ever emits rows).
OperatorPartitionData GroupedPartitionData(ClientContext &, TableFunctionGetPartitionInput &input) {
	if (input.bind_data->Cast<GroupedBindData>().sorted) {
		return OperatorPartitionData(SortedGroupsBatch(*input.local_state));
	}
	return OperatorPartitionData(input.local_state->Cast<GroupedLocalState>().id);
}

InsertionOrderPreservingMap<string> GroupedToString(TableFunctionToStringInput &input) {
	InsertionOrderPreservingMap<string> result;
	auto &bind = input.bind_data->Cast<GroupedBindData>();
	string groups, list;
	for (idx_t k = 0; k < bind.keys.size(); k++) {
		groups += (groups.empty() ? "" : "\n") + bind.KeyDisplay(k);
	}
	for (auto &a : bind.aggregates) {
		list += (list.empty() ? "" : "\n") + a.display;
	}
	result["Pushed Groups"] = groups;
	if (bind.sorted) {
		result["Grouped As"] = "sorted runs";
	}
	result["Pushed Aggregates"] = list;
	if (!bind.order.empty()) {
		string order;
		for (auto &term : bind.order) {
			order += (order.empty() ? "" : "\n") + bind.KeyDisplay(term.key) +
			         (term.descending ? " DESC" : " ASC") + (term.nulls_first ? " NULLS FIRST" : " NULLS LAST");
		}
		result["Pushed Order"] = order;
	}
	auto filters = FiltersText(bind.filters, bind.expressions, bind.file_filters);
	if (!filters.empty()) {
		result["Filters"] = filters;
	}
	result["Files"] = std::to_string(bind.files.size());
	return result;
}

void GroupedSerialize(Serializer &s, const optional_ptr<FunctionData> bind_p, const TableFunction &) {
	auto &bind = bind_p->Cast<GroupedBindData>();
	SerializeFiles(s, 100, bind.files);
	SerializeFields(s, 101, bind.fields, bind.field_types); // 101, 102
	s.WriteProperty<vector<idx_t>>(103, "keys", vector<idx_t>(bind.keys.begin(), bind.keys.end()));
	SerializeHive(s, 104, bind.hive); // 104-106
	s.WriteList(107, "key_transforms", bind.key_transforms.size(), [&](Serializer::List &list, idx_t i) {
		list.WriteObject([&](Serializer &obj) { obj.WritePropertyWithDefault(1, "transform", bind.key_transforms[i]); });
	});
	SerializeAggregates(s, 108, bind.aggregates);
	SerializeFilters(s, 109, bind.filters);
	s.WriteProperty<vector<string>>(110, "file_filters", vector<string>(bind.file_filters.begin(), bind.file_filters.end()));
	s.WriteList(111, "order", bind.order.size(), [&](Serializer::List &list, idx_t i) {
		list.WriteObject([&](Serializer &obj) {
			obj.WriteProperty<idx_t>(1, "column", bind.order[i].column);
			obj.WriteProperty<idx_t>(2, "key", bind.order[i].key);
			obj.WriteProperty<bool>(3, "descending", bind.order[i].descending);
			obj.WriteProperty<bool>(4, "nulls_first", bind.order[i].nulls_first);
		});
	});
	SerializeExpressionFilters(s, 112, bind.expressions);
	SerializeFileColumns(s, 113, bind.file_columns); // 113-117
	s.WritePropertyWithDefault<bool>(119, "sorted", bind.sorted, false);
	s.WriteList(118, "key_buckets", bind.key_buckets.size(), [&](Serializer::List &list, idx_t i) {
		list.WriteObject([&](Serializer &obj) {
			obj.WritePropertyWithDefault(1, "bucket", bind.key_buckets[i]);
			obj.WriteProperty<string>(2, "display", bind.bucket_display[i]);
			obj.WriteProperty<bool>(3, "monotone", bind.bucket_monotone[i]);
		});
	});
}

unique_ptr<FunctionData> GroupedDeserialize(Deserializer &d, TableFunction &) {
	auto bind = make_uniq<GroupedBindData>();
	bind->files = DeserializeFiles(d, 100);
	DeserializeFields(d, 101, bind->fields, bind->field_types);
	auto keys = d.ReadProperty<vector<idx_t>>(103, "keys");
	bind->keys.assign(keys.begin(), keys.end());
	bind->hive = DeserializeHive(d, 104);
	d.ReadList(107, "key_transforms", [&](Deserializer::List &list, idx_t) {
		list.ReadObject([&](Deserializer &obj) {
			bind->key_transforms.push_back(obj.ReadPropertyWithDefault<unique_ptr<Expression>>(1, "transform"));
		});
	});
	bind->aggregates = DeserializeAggregates(d, 108);
	bind->filters = DeserializeFilters(d, 109);
	auto file_filters = d.ReadProperty<vector<string>>(110, "file_filters");
	bind->file_filters.assign(file_filters.begin(), file_filters.end());
	d.ReadList(111, "order", [&](Deserializer::List &list, idx_t) {
		list.ReadObject([&](Deserializer &obj) {
			KeyOrder k;
			k.column = obj.ReadProperty<idx_t>(1, "column");
			k.key = obj.ReadProperty<idx_t>(2, "key");
			k.descending = obj.ReadProperty<bool>(3, "descending");
			k.nulls_first = obj.ReadProperty<bool>(4, "nulls_first");
			bind->order.push_back(k);
		});
	});
	bind->expressions = DeserializeExpressionFilters(d, 112);
	bind->file_columns = DeserializeFileColumns(d, 113);
	bind->sorted = d.ReadPropertyWithExplicitDefault<bool>(119, "sorted", false);
	d.ReadList(118, "key_buckets", [&](Deserializer::List &list, idx_t) {
		list.ReadObject([&](Deserializer &obj) {
			bind->key_buckets.push_back(obj.ReadPropertyWithDefault<unique_ptr<Expression>>(1, "bucket"));
			bind->bucket_display.push_back(obj.ReadProperty<string>(2, "display"));
			bind->bucket_monotone.push_back(obj.ReadProperty<bool>(3, "monotone"));
		});
	});
	return std::move(bind);
}

} // namespace

namespace {

InsertionOrderPreservingMap<string> GroupedDynamicToString(TableFunctionDynamicToStringInput &input) {
	InsertionOrderPreservingMap<string> result;
	if (input.global_state) {
		// EXPLAIN ANALYZE heads every table function's box TABLE_SCAN; say which one ran, as
		// DuckDB does for read_parquet.
		result["Function"] = "VORTEX_SCAN_GROUPED";
		input.global_state->Cast<GroupedGlobalState>().zones.Show(result);
	}
	return result;
}

} // namespace

TableFunction GetGroupedAggregateFunction() {
	// Its own name, so that a serialized plan finds it again in the catalog (extension.cpp
	// registers it); EXPLAIN shows it as VORTEX_SCAN_GROUPED.
	TableFunction tf("vortex_scan_grouped", {}, GroupedScan, RefusePlantedBind, GroupedInit, GroupedInitLocal);
	tf.serialize = GroupedSerialize;
	tf.deserialize = GroupedDeserialize;
	tf.get_partition_data = GroupedPartitionData;
	tf.to_string = GroupedToString;
	tf.dynamic_to_string = GroupedDynamicToString;
	tf.projection_pushdown = true;
	return tf;
}

} // namespace vortex
