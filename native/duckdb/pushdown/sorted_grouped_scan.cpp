#include "sorted_grouped_scan.hpp"

#include "../../compute/sorted_groups.hpp"
#include "../../compute/zone_mask.hpp"
#include "../../format/file/reader.hpp"
#include "plan.hpp"
#include "../zone_fetch.hpp"
#include "duckdb_semantics.hpp"
#include "zone_filters.hpp"
#include "../type_mapping.hpp"
#include "duckdb/execution/expression_executor.hpp"

#include <atomic>
#include <map>
#include <mutex>
#include <unordered_map>

namespace vortex {

using namespace duckdb;
using vtx::compute::IntegerLayout;
using vtx::compute::SortedAggregate;
using vtx::compute::SortedGroups;
using vtx::compute::ZoneMatch;

namespace {

//! A fixed-width integer column as the compute layer reads it; false for anything else.
bool LayoutOf(const vtx::ColumnType &type, IntegerLayout &layout) {
	const auto kind = type.Kind();
	const auto width = type.ByteWidth();
	if (type.IsNested() || (kind != vtx::PhysicalKind::SIGNED && kind != vtx::PhysicalKind::UNSIGNED) ||
	    (width != 1 && width != 2 && width != 4 && width != 8)) {
		return false;
	}
	layout.width = static_cast<uint8_t>(width);
	layout.is_signed = kind == vtx::PhysicalKind::SIGNED;
	return true;
}

bool IntegerPhysical(PhysicalType t) {
	switch (t) {
	case PhysicalType::INT8:
	case PhysicalType::INT16:
	case PhysicalType::INT32:
	case PhysicalType::INT64:
	case PhysicalType::UINT8:
	case PhysicalType::UINT16:
	case PhysicalType::UINT32:
	case PhysicalType::UINT64: return true;
	default: return false;
	}
}


//! What a pushed aggregate becomes over runs; false where it cannot be computed exactly there:
//! values other than integers and DECIMALs of at most 18 digits (a DECIMAL as DuckDB bound it,
//! unrescaled), aggregates the runs do not keep, results of another type than DuckDB's.
bool RunsOf(const GroupedBindData &bind, const PushedAggregate &a, SortedAggregate &kind) {
	const auto runs = SpecOf(a.kind).runs;
	if (!runs) {
		return false;
	}
	if (a.kind != AggregateKind::COUNT_STAR) {
		if (a.field >= bind.fields.size()) {
			return false;
		}
		IntegerLayout layout;
		auto &stored = bind.field_types[a.field];
		const bool decimal = stored.id() == LogicalTypeId::DECIMAL && stored.InternalType() != PhysicalType::INT128;
		if (!LayoutOf(bind.fields[a.field].type, layout) || !(IsPlainInteger(stored) || decimal) ||
		    (decimal ? a.bound_type != stored : !IsPlainInteger(a.bound_type))) {
			return false;
		}
	}
	return runs(a, kind);
}

struct SortedWork {
	idx_t file;
	idx_t zone;
	ZoneMatch match;
	std::vector<ZoneMatch> matches;
};

struct SortedGlobalState : public GlobalTableFunctionState {
	idx_t MaxThreads() const override {
		return max_threads;
	}
	IntegerLayout key;
	std::vector<IntegerLayout> values;
	std::vector<idx_t> value_fields;
	std::vector<vtx::compute::SortedAggregateSpec> specs;
	vector<column_t> column_ids;
	std::vector<PlannedFile> files;
	std::vector<SortedWork> work;
	std::atomic<idx_t> next_work {0};
	idx_t max_threads = 1;
	std::mutex lock;
	//! Zones' first and last groups, merged by key: they may continue in the neighbouring zones.
	SortedGroups edges;
	std::unordered_map<uint64_t, size_t> edge_index;
	idx_t registered = 0, finished = 0;
	bool emitted = false;
};

struct SortedLocalState : public LocalTableFunctionState {
	SortedLocalState(const SortedGlobalState &g, ZoneFilter filter_p)
	    : grouper(g.key, g.values, g.specs), filter(std::move(filter_p)) {
	}
	idx_t id = 0;
	vtx::compute::SortedGrouper grouper;
	ZoneFilter filter;
	std::map<idx_t, vtx::DecodedColumn> buffers; //! reused from zone to zone
	vtx::compute::ZoneMask mask;
	SortedGroups groups;
	size_t next = 0, end = 0; //! groups[next, end) are still to be handed on
	bool done = false;
	std::unique_ptr<ExpressionExecutor> transform; //! the key's compressed materialization, if any
	DataChunk raw_keys;
};

//! Groups zone `item` into l.groups; the first and last group go to the shared edges.
void GroupZone(const GroupedBindData &bind, SortedGlobalState &g, SortedLocalState &l, const SortedWork &item) {
	auto &file = g.files[item.file];
	auto &meta = *file.meta;
	auto &zone = meta.zones[item.zone];
	auto &path = bind.files[item.file].path;
	// The zone's columns in as few requests as its layout allows on a remote file (zone_fetch.hpp).
	ZoneFetch fetch(*file.source);
	if (file.source->Remote()) {
		std::vector<idx_t> fields(g.value_fields.begin(), g.value_fields.end());
		fields.push_back(bind.keys[0]);
		if (item.match == ZoneMatch::SOME) {
			l.filter.Fields(item.matches, fields);
		}
		fetch.Add(meta, item.zone, fields);
	}
	ZoneDecoder column(file, item.zone, path, l.buffers, &fetch.Fetch(path));
	l.groups.Clear(g.specs.size());
	l.next = l.end = 0;
	auto match = item.match;
	if (match == ZoneMatch::SOME) {
		match = l.filter.Filter(zone, item.file, item.matches, column, l.mask);
		if (match == ZoneMatch::NONE) {
			return;
		}
	}
	const auto &keys = column(bind.keys[0]);
	std::vector<const vtx::DecodedColumn *> values;
	for (auto f : g.value_fields) {
		values.push_back(&column(f));
	}
	l.grouper.GroupZone(keys, values, match == ZoneMatch::SOME ? l.mask.Rows() : nullptr, zone.rows, l.groups);
	const size_t n = l.groups.Size();
	if (n == 0) {
		return;
	}
	// The plan relies on the zone's statistics (a key strictly inside its range is in no other
	// zone): keys outside the range they state would be handed on twice. Groups come in key order.
	auto &stats = zone.chunks[bind.keys[0]].stats;
	const uint64_t first = l.groups.keys[0], last = l.groups.keys[n - 1];
	if (g.key.Ordered(reinterpret_cast<const uint8_t *>(&first)) <
	        g.key.Ordered(reinterpret_cast<const uint8_t *>(stats.min.data())) ||
	    g.key.Ordered(reinterpret_cast<const uint8_t *>(&last)) >
	        g.key.Ordered(reinterpret_cast<const uint8_t *>(stats.max.data()))) {
		ThrowFileError(path, vtx::FormatError("zone " + std::to_string(item.zone) + " of column \"" +
		                                      bind.fields[bind.keys[0]].name +
		                                      "\" holds values outside its statistics' min and max"));
	}
	{
		std::lock_guard<std::mutex> guard(g.lock);
		for (size_t i : {size_t(0), n - 1}) {
			auto it = g.edge_index.find(l.groups.keys[i]);
			if (it == g.edge_index.end()) {
				g.edge_index.emplace(l.groups.keys[i], g.edges.Size());
				l.grouper.CopyGroup(g.edges, l.groups, i);
			} else {
				l.grouper.MergeGroup(g.edges, it->second, l.groups, i);
			}
			if (n == 1) {
				break;
			}
		}
	}
	l.next = 1;
	l.end = n > 1 ? n - 1 : 1;
}

//! Groups [begin, end) of `groups` as rows of `output`: its columns are g.column_ids, each the
//! key (0) or an aggregate (1 + its index).
void Emit(const GroupedBindData &bind, const SortedGlobalState &g, SortedLocalState &l, const SortedGroups &groups,
          size_t begin, size_t end, DataChunk &output) {
	const idx_t n = end - begin;
	for (idx_t c = 0; c < g.column_ids.size(); c++) {
		const auto id = g.column_ids[c];
		auto &vec = output.data[c];
		if (id == 0) {
			Vector &raw = l.transform ? l.raw_keys.data[0] : vec;
			if (l.transform) {
				l.raw_keys.Reset();
			}
			for (idx_t i = 0; i < n; i++) {
				StoreInteger(raw, i, g.key.Widen(groups.keys[begin + i]));
			}
			if (l.transform) {
				l.raw_keys.SetCardinality(n);
				l.transform->ExecuteExpression(l.raw_keys, vec);
			}
			continue;
		}
		if (id > bind.aggregates.size()) {
			vec.SetVectorType(VectorType::CONSTANT_VECTOR);
			ConstantVector::SetNull(vec, true);
			continue;
		}
		auto &aggregate = bind.aggregates[id - 1];
		const auto finalize = SpecOf(aggregate.kind).finalize;
		auto &acc = groups.acc[id - 1];
		auto &counts = groups.counts[id - 1];
		Accumulated in;
		for (idx_t i = 0; i < n; i++) {
			const size_t gi = begin + i;
			in.rows = groups.rows[gi];
			in.values = counts[gi];
			in.integer = acc[gi];
			finalize(aggregate, in, vec, i);
		}
	}
	output.SetCardinality(n);
}

} // namespace

bool SortedKeyZones(const GroupedBindData &bind) {
	IntegerLayout key;
	// Keys DuckDB holds as integers (not BOOLEAN), written back from their stored bytes.
	if (bind.keys.size() != 1 || bind.key_buckets[0] || bind.IsHive(bind.keys[0]) ||
	    !LayoutOf(bind.fields[bind.keys[0]].type, key) || !IntegerPhysical(bind.field_types[bind.keys[0]].InternalType())) {
		return false;
	}
	for (auto &a : bind.aggregates) {
		SortedAggregate kind;
		if (!RunsOf(bind, a, kind)) {
			return false;
		}
	}
	bool any = false;
	uint64_t last_max = 0;
	for (auto &f : bind.files) {
		for (auto &z : f.meta->zones) {
			if (z.rows == 0) {
				continue;
			}
			auto &s = z.chunks[bind.keys[0]].stats;
			if (!s.has_minmax || !s.minmax_exact || s.nulls != 0 || s.min.size() != key.width ||
			    s.max.size() != key.width) {
				return false;
			}
			const uint64_t lo = key.Ordered(reinterpret_cast<const uint8_t *>(s.min.data()));
			const uint64_t hi = key.Ordered(reinterpret_cast<const uint8_t *>(s.max.data()));
			if (hi < lo || (any && lo < last_max)) {
				return false;
			}
			last_max = hi;
			any = true;
		}
	}
	return any;
}

unique_ptr<GlobalTableFunctionState> SortedGroupsInit(ClientContext &context, TableFunctionInitInput &input) {
	auto &bind = input.bind_data->Cast<GroupedBindData>();
	auto g = make_uniq<SortedGlobalState>();
	g->column_ids = input.column_ids;
	LayoutOf(bind.fields[bind.keys[0]].type, g->key);
	std::map<idx_t, size_t> slot;
	for (auto &a : bind.aggregates) {
		vtx::compute::SortedAggregateSpec spec;
		if (!RunsOf(bind, a, spec.kind)) {
			throw InternalException("vortex: a sorted grouped scan planned with %s", a.display);
		}
		if (spec.kind != SortedAggregate::COUNT_STAR) {
			auto it = slot.find(a.field);
			if (it == slot.end()) {
				it = slot.emplace(a.field, g->value_fields.size()).first;
				g->value_fields.push_back(a.field);
				IntegerLayout layout;
				LayoutOf(bind.fields[a.field].type, layout);
				g->values.push_back(layout);
			}
			spec.value = it->second;
		}
		g->specs.push_back(spec);
	}
	g->edges.Clear(g->specs.size());
	auto filter = GroupedFilterOf(context, bind);
	std::vector<ZoneMatch> matches;
	g->files = OpenPlannedFiles(context, bind.files, bind.fields, bind.field_types);
	for (idx_t f = 0; f < bind.files.size(); f++) {
		auto &meta = *g->files[f].meta;
		for (idx_t z = 0; z < meta.zones.size(); z++) {
			if (meta.zones[z].rows == 0) {
				continue;
			}
			const auto match = filter.Classify(meta.zones[z], f, matches);
			if (match != ZoneMatch::NONE) {
				g->work.push_back(SortedWork {f, z, match, matches});
			}
		}
	}
	g->max_threads =
	    std::max<idx_t>(1, std::min<idx_t>(g->work.size(), TaskScheduler::GetScheduler(context).NumberOfThreads()));
	return std::move(g);
}

unique_ptr<LocalTableFunctionState> SortedGroupsInitLocal(ExecutionContext &context, TableFunctionInitInput &input,
                                                          GlobalTableFunctionState *gstate) {
	auto &g = gstate->Cast<SortedGlobalState>();
	auto &bind = input.bind_data->Cast<GroupedBindData>();
	auto l = make_uniq<SortedLocalState>(g, GroupedFilterOf(context.client, bind));
	if (bind.key_transforms[0]) {
		l->transform = make_uniq<ExpressionExecutor>(context.client, *bind.key_transforms[0]);
		l->raw_keys.Initialize(Allocator::Get(context.client), {bind.KeyType(0)});
	}
	std::lock_guard<std::mutex> guard(g.lock);
	l->id = g.registered++;
	return std::move(l);
}

void SortedGroupsScan(ClientContext &, TableFunctionInput &data, DataChunk &output) {
	auto &bind = data.bind_data->Cast<GroupedBindData>();
	auto &g = data.global_state->Cast<SortedGlobalState>();
	auto &l = data.local_state->Cast<SortedLocalState>();
	while (l.next >= l.end) {
		if (l.done) {
			output.SetCardinality(0);
			return;
		}
		const auto idx = g.next_work.fetch_add(1);
		if (idx < g.work.size()) {
			GroupZone(bind, g, l, g.work[idx]);
			continue;
		}
		l.done = true;
		l.buffers.clear();
		std::lock_guard<std::mutex> guard(g.lock);
		g.finished++;
		if (g.finished != g.registered || g.emitted) {
			output.SetCardinality(0);
			return;
		}
		// Every zone is grouped: the edges are whole now, and this thread hands them on.
		g.emitted = true;
		l.groups = std::move(g.edges);
		l.next = 0;
		l.end = l.groups.Size();
	}
	const size_t end = std::min<size_t>(l.end, l.next + STANDARD_VECTOR_SIZE);
	Emit(bind, g, l, l.groups, l.next, end, output);
	l.next = end;
}

idx_t SortedGroupsBatch(LocalTableFunctionState &local) {
	return local.Cast<SortedLocalState>().id;
}

} // namespace vortex
