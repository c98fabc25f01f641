#include "pushed_aggregate.hpp"

#include "../format/reader.hpp"
#include "duckdb_semantics.hpp"
#include "file_io.hpp"
#include "metadata_cache.hpp"
#include "plan_guard.hpp"
#include "type_mapping.hpp"

#include <map>

namespace vortex {

using namespace duckdb;
using vtx::compute::AggregateState;
using vtx::compute::KernelOptions;

unique_ptr<FunctionData> PushedBindData::Copy() const {
	auto r = make_uniq<PushedBindData>();
	r->files = files;
	r->fields = fields;
	r->field_types = field_types;
	r->aggregates = aggregates;
	return std::move(r);
}

bool PushedBindData::Equals(const FunctionData &other_p) const {
	auto &o = other_p.Cast<PushedBindData>();
	if (files.size() != o.files.size() || aggregates != o.aggregates || field_types != o.field_types) {
		return false;
	}
	for (size_t i = 0; i < files.size(); i++) {
		if (files[i].path != o.files[i].path || !SameFileVersion(*files[i].meta, *o.files[i].meta)) {
			return false;
		}
	}
	return true;
}

namespace {

struct PushedGlobalState : public GlobalTableFunctionState {
	vector<Value> row;
	bool emitted = false;
};

//! Accumulates the zone statistics of every file, decoding only chunks whose statistics
//! cannot answer (inexact long-string min/max).
std::map<idx_t, AggregateState> Accumulate(ClientContext &context, const PushedBindData &bind, uint64_t &rows) {
	std::map<idx_t, AggregateState> states;
	std::map<idx_t, bool> needs_minmax, needs_sum;
	for (auto &a : bind.aggregates) {
		if (a.kind == AggregateKind::COUNT_STAR) {
			continue;
		}
		states.emplace(a.field, AggregateState(bind.fields[a.field].type));
		needs_minmax[a.field] = needs_minmax[a.field] || a.kind == AggregateKind::MIN || a.kind == AggregateKind::MAX;
		needs_sum[a.field] = needs_sum[a.field] || a.kind == AggregateKind::SUM || a.kind == AggregateKind::AVG;
	}
	rows = 0;
	for (idx_t f = 0; f < bind.files.size(); f++) {
		auto &path = bind.files[f].path;
		auto file = OpenPlannedFile(context, bind.files, f, bind.fields, bind.field_types);
		auto &source = *file.source;
		auto &meta = file.meta;
		rows += meta->total_rows;
		for (size_t z = 0; z < meta->zones.size(); z++) {
			for (auto &entry : states) {
				auto &stats = meta->zones[z].chunks[entry.first].stats;
				if (AggregateState::StatsSuffice(stats, needs_minmax[entry.first], needs_sum[entry.first])) {
					entry.second.AddStats(stats);
					continue;
				}
				vtx::DecodedColumn chunk;
				try {
					vtx::ReadChunk(source, *meta, z, entry.first, chunk);
				} catch (vtx::FormatError &e) {
					ThrowFileError(path, e);
				}
				entry.second.AddDecoded(chunk);
			}
		}
	}
	return states;
}

Value Finalize(const PushedAggregate &a, const AggregateState *s, uint64_t rows, const LogicalType &field_type) {
	KernelOptions o;
	o.skip_nans = a.skip_nans;
	if (a.kind == AggregateKind::COUNT_STAR) {
		return Value::BIGINT(static_cast<int64_t>(rows));
	}
	const uint64_t values = vtx::compute::CountValues(*s, o);
	if (a.kind == AggregateKind::COUNT) {
		return Value::BIGINT(static_cast<int64_t>(values));
	}
	if (values == 0) {
		// Vortex says 0 (sum) or NaN (mean) here; DuckDB says NULL.
		return a.empty_is_null ? Value(a.result_type) : Value::Numeric(a.result_type, 0);
	}
	const bool is_float = s->type.IsFloat();
	if (s->sum_overflow && (a.kind == AggregateKind::SUM || a.kind == AggregateKind::AVG)) {
		// Unreachable: wide sums are pushed only when SumBounded proved this cannot happen.
		throw OutOfRangeException("Overflow in HUGEINT addition");
	}
	switch (a.kind) {
	case AggregateKind::SUM:
		if (is_float) {
			return Value::DOUBLE(vtx::compute::FloatSum(*s, o)).DefaultCastAs(a.result_type);
		}
		return IntegerSumValue(s->int_sum, a.result_type);
	case AggregateKind::AVG:
		if (is_float) {
			return Value::DOUBLE(vtx::compute::FloatSum(*s, o) / static_cast<double>(values));
		}
		return Value::DOUBLE(DuckDBIntegerAverage(s->int_sum, values, a.bound_type));
	case AggregateKind::MIN:
	case AggregateKind::MAX: {
		if (!s->has_minmax) {
			return Value(a.result_type);
		}
		auto v = RawToValue(field_type, a.kind == AggregateKind::MIN ? s->min : s->max);
		return v.type() == a.result_type ? v : v.DefaultCastAs(a.result_type);
	}
	default:
		break;
	}
	throw InternalException("vortex: unexpected pushed aggregate");
}

unique_ptr<GlobalTableFunctionState> PushedInit(ClientContext &context, TableFunctionInitInput &input) {
	auto &bind = input.bind_data->Cast<PushedBindData>();
	auto g = make_uniq<PushedGlobalState>();
	uint64_t rows;
	auto states = Accumulate(context, bind, rows);
	vector<Value> all;
	for (auto &a : bind.aggregates) {
		auto it = states.find(a.field);
		const AggregateState *s = a.kind == AggregateKind::COUNT_STAR ? nullptr : &it->second;
		all.push_back(Finalize(a, s, rows, a.kind == AggregateKind::COUNT_STAR ? LogicalType::BIGINT : bind.field_types[a.field]));
	}
	for (auto id : input.column_ids) {
		g->row.push_back(id < all.size() ? all[id] : Value());
	}
	return std::move(g);
}

void PushedScan(ClientContext &, TableFunctionInput &data, DataChunk &output) {
	auto &g = data.global_state->Cast<PushedGlobalState>();
	if (g.emitted) {
		return;
	}
	for (idx_t c = 0; c < g.row.size(); c++) {
		output.SetValue(c, 0, g.row[c]);
	}
	output.SetCardinality(1);
	g.emitted = true;
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
	return result;
}

} // namespace

Value FinalizePushed(const PushedAggregate &a, const AggregateState *s, uint64_t rows, const LogicalType &field_type) {
	return Finalize(a, s, rows, field_type);
}

TableFunction GetPushedAggregateFunction() {
	TableFunction tf("vortex_scan", {}, PushedScan, nullptr, PushedInit);
	tf.cardinality = PushedCardinality;
	tf.to_string = PushedToString;
	tf.projection_pushdown = true;
	return tf;
}

} // namespace vortex
