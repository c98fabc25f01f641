#include "pushdown_optimizer.hpp"

#include "duckdb_semantics.hpp"
#include "pushed_aggregate.hpp"
#include "scan_bind_data.hpp"
#include "scan_filters.hpp"
#include "duckdb/planner/filter/conjunction_filter.hpp"
#include "duckdb/common/multi_file/multi_file_reader.hpp"
#include "settings.hpp"
#include "duckdb/optimizer/optimizer_extension.hpp"
#include "duckdb/planner/expression/bound_aggregate_expression.hpp"
#include "duckdb/planner/expression/bound_cast_expression.hpp"
#include "duckdb/planner/expression/bound_columnref_expression.hpp"
#include "duckdb/planner/operator/logical_aggregate.hpp"
#include "duckdb/planner/operator/logical_filter.hpp"
#include "duckdb/planner/expression/bound_operator_expression.hpp"
#include "duckdb/planner/operator/logical_get.hpp"
#include "duckdb/planner/operator/logical_projection.hpp"

namespace vortex {

using namespace duckdb;

namespace {

struct IntegerRange {
	bool is_signed;
	int bits;
};

bool IntegerRangeOf(const LogicalType &t, IntegerRange &r) {
	switch (t.id()) {
	case LogicalTypeId::TINYINT: r = {true, 8}; return true;
	case LogicalTypeId::SMALLINT: r = {true, 16}; return true;
	case LogicalTypeId::INTEGER: r = {true, 32}; return true;
	case LogicalTypeId::BIGINT: r = {true, 64}; return true;
	case LogicalTypeId::HUGEINT: r = {true, 128}; return true;
	case LogicalTypeId::UTINYINT: r = {false, 8}; return true;
	case LogicalTypeId::USMALLINT: r = {false, 16}; return true;
	case LogicalTypeId::UINTEGER: r = {false, 32}; return true;
	case LogicalTypeId::UBIGINT: r = {false, 64}; return true;
	case LogicalTypeId::UHUGEINT: r = {false, 128}; return true;
	default: return false;
	}
}

//! Casts DuckDB inserts to reach an overload (TINYINT -> BIGINT, FLOAT -> DOUBLE) keep every
//! value exactly, so statistics of the stored column still describe the cast values.
bool LosslessCast(const BoundCastExpression &cast) {
	if (cast.try_cast) {
		return false;
	}
	auto &from = cast.child->return_type;
	auto &to = cast.return_type;
	if (from.id() == LogicalTypeId::FLOAT && to.id() == LogicalTypeId::DOUBLE) {
		return true;
	}
	IntegerRange a, b;
	if (!IntegerRangeOf(from, a) || !IntegerRangeOf(to, b)) {
		return false;
	}
	if (a.is_signed == b.is_signed) {
		return b.bits >= a.bits;
	}
	return !a.is_signed && b.is_signed && b.bits > a.bits;
}

struct Chain {
	LogicalGet *get = nullptr;
	ScanBindData *scan = nullptr;
	std::vector<LogicalProjection *> projections;
	std::vector<LogicalFilter *> filters; //! FILTERs between the aggregate and the scan
};

//! Follows an aggregate argument down to a scan column through projections of plain
//! column references and lossless casts.
bool ResolveColumn(const Chain &chain, const Expression &expr, idx_t &field) {
	const Expression *e = &expr;
	while (true) {
		if (e->GetExpressionClass() == ExpressionClass::BOUND_CAST) {
			auto &cast = e->Cast<BoundCastExpression>();
			if (!LosslessCast(cast)) {
				return false;
			}
			e = cast.child.get();
			continue;
		}
		if (e->GetExpressionClass() != ExpressionClass::BOUND_COLUMN_REF) {
			return false;
		}
		auto &ref = e->Cast<BoundColumnRefExpression>();
		const Expression *next = nullptr;
		for (auto *p : chain.projections) {
			if (p->table_index == ref.binding.table_index) {
				if (ref.binding.column_index >= p->expressions.size()) {
					return false;
				}
				next = p->expressions[ref.binding.column_index].get();
				break;
			}
		}
		if (next) {
			e = next;
			continue;
		}
		if (ref.binding.table_index != chain.get->table_index) {
			return false;
		}
		auto &ids = chain.get->GetColumnIds();
		if (ref.binding.column_index >= ids.size()) {
			return false;
		}
		field = ids[ref.binding.column_index].GetPrimaryIndex();
		return field < chain.scan->fields.size() && ref.return_type == chain.scan->types[field];
	}
}

bool KindOf(const std::string &name, AggregateKind &kind, std::string &setting) {
	if (name == "count_star") {
		kind = AggregateKind::COUNT_STAR;
		setting = "vortex_pushdown_count";
	} else if (name == "count") {
		kind = AggregateKind::COUNT;
		setting = "vortex_pushdown_count";
	} else if (name == "sum" || name == "sum_no_overflow") {
		kind = AggregateKind::SUM;
		setting = "vortex_pushdown_sum";
	} else if (name == "avg") {
		kind = AggregateKind::AVG;
		setting = "vortex_pushdown_avg";
	} else if (name == "min") {
		kind = AggregateKind::MIN;
		setting = "vortex_pushdown_min";
	} else if (name == "max") {
		kind = AggregateKind::MAX;
		setting = "vortex_pushdown_max";
	} else {
		return false;
	}
	return true;
}

bool IsFloat(const LogicalType &t) {
	return t.id() == LogicalTypeId::FLOAT || t.id() == LogicalTypeId::DOUBLE;
}

//! The native side's own limits, whatever the rules say: float min/max never (NaN and
//! -0.0 ordering), sums only where the exact integer sum is kept and its result type known.
bool NativelySupported(const PushedAggregate &a, const LogicalType &stored) {
	switch (a.kind) {
	case AggregateKind::COUNT_STAR:
		return a.result_type == LogicalType::BIGINT;
	case AggregateKind::COUNT:
		return a.result_type == LogicalType::BIGINT;
	case AggregateKind::MIN:
	case AggregateKind::MAX:
		if (IsFloat(stored) || IsFloat(a.bound_type)) {
			return false;
		}
		switch (stored.id()) {
		case LogicalTypeId::INTERVAL:
		case LogicalTypeId::TIME_TZ:
		case LogicalTypeId::UUID:
			return false;
		default:
			return true;
		}
	case AggregateKind::SUM:
	case AggregateKind::AVG: {
		if (IsFloat(stored)) {
			return a.bound_type == LogicalType::DOUBLE && a.result_type == LogicalType::DOUBLE;
		}
		IntegerRange range;
		bool integer_sum = stored.id() == LogicalTypeId::BOOLEAN || stored.id() == LogicalTypeId::DECIMAL ||
		                   IntegerRangeOf(stored, range);
		if (!integer_sum || stored.InternalType() == PhysicalType::INT128 ||
		    stored.InternalType() == PhysicalType::UINT128) {
			return false;
		}
		if (a.kind == AggregateKind::AVG) {
			return a.result_type == LogicalType::DOUBLE && a.bound_type.id() != LogicalTypeId::BOOLEAN;
		}
		return SupportsIntegerSumResult(a.result_type);
	}
	}
	return false;
}

bool FindChain(LogicalOperator &child, Chain &chain) {
	LogicalOperator *node = &child;
	while (node->type == LogicalOperatorType::LOGICAL_PROJECTION || node->type == LogicalOperatorType::LOGICAL_FILTER) {
		if (node->type == LogicalOperatorType::LOGICAL_PROJECTION) {
			chain.projections.push_back(&node->Cast<LogicalProjection>());
		} else {
			chain.filters.push_back(&node->Cast<LogicalFilter>());
		}
		node = node->children[0].get();
	}
	if (node->type != LogicalOperatorType::LOGICAL_GET) {
		return false;
	}
	auto &get = node->Cast<LogicalGet>();
	if (get.function.name != "vortex_scan" || !get.bind_data || get.extra_info.sample_options) {
		return false;
	}
	chain.get = &get;
	chain.scan = dynamic_cast<ScanBindData *>(get.bind_data.get());
	return chain.scan != nullptr;
}

//! Filters DuckDB must be able to rely on as applied exactly, with fixed values: no optional
//! filter (DuckDB keeps those above the scan anyway) and no dynamic one.
bool ExactFilter(const TableFilter &f) {
	switch (f.filter_type) {
	case TableFilterType::CONSTANT_COMPARISON:
	case TableFilterType::IS_NULL:
	case TableFilterType::IS_NOT_NULL:
	case TableFilterType::IN_FILTER:
		return true;
	case TableFilterType::CONJUNCTION_AND:
	case TableFilterType::CONJUNCTION_OR:
		for (auto &child : (f.filter_type == TableFilterType::CONJUNCTION_AND ? f.Cast<ConjunctionAndFilter>().child_filters
		                                                             : f.Cast<ConjunctionOrFilter>().child_filters)) {
			if (!ExactFilter(*child)) {
				return false;
			}
		}
		return true;
	default:
		return false;
	}
}

//! Takes the scan's table filters into the pushed aggregate: file-column filters as compute
//! predicates, partition and file-name filters by keeping only the files that satisfy them.
//! False when any filter is not exactly evaluable (the aggregate then stays DuckDB's).
bool TakeFilters(ClientContext &context, const Chain &chain, PushedBindData &bind) {
	auto &scan = *chain.scan;
	std::vector<bool> keep(scan.files.size(), true);
	for (auto &entry : chain.get->table_filters.filters) {
		const idx_t id = entry.first;
		auto &filter = *entry.second;
		if (!ExactFilter(filter) || !SupportsFilterOn(scan, id)) {
			return false;
		}
		if (id < scan.fields.size()) {
			PushedFilter pf;
			pf.field = id;
			bool dynamic = false;
			if (!TranslateFilter(filter, scan.types[id], FilterUse::EXACT, pf.predicate, dynamic) || dynamic) {
				return false;
			}
			pf.display = filter.ToString(scan.fields[id].name);
			bind.filters.push_back(std::move(pf));
			continue;
		}
		for (idx_t f = 0; f < scan.files.size(); f++) {
			Value constant;
			if (!FileConstant(scan, id, f, constant)) {
				return false;
			}
			keep[f] = keep[f] && ConstantMatches(context, filter, constant);
		}
		bind.file_filters.push_back(filter.ToString(scan.IsHiveColumn(id)                      ? scan.hive.keys[id - scan.fields.size()]
		                                            : id == MultiFileReader::COLUMN_IDENTIFIER_FILE_INDEX ? std::string("file_index")
		                                                                                                 : std::string("filename")));
	}
	// DuckDB keeps `column IS [NOT] NULL` above the scan as a FILTER: the pushed aggregate
	// applies it itself. Any other expression there keeps the aggregate DuckDB's.
	for (auto *filter : chain.filters) {
		for (auto &expr : filter->expressions) {
			auto type = expr->GetExpressionType();
			if ((type != ExpressionType::OPERATOR_IS_NULL && type != ExpressionType::OPERATOR_IS_NOT_NULL) ||
			    expr->GetExpressionClass() != ExpressionClass::BOUND_OPERATOR) {
				return false;
			}
			auto &op = expr->Cast<BoundOperatorExpression>();
			PushedFilter pf;
			if (op.children.size() != 1 || !ResolveColumn(chain, *op.children[0], pf.field) ||
			    !SupportsFilterOn(scan, pf.field)) {
				return false;
			}
			pf.predicate.kind = type == ExpressionType::OPERATOR_IS_NULL ? vtx::compute::Predicate::Kind::IS_NULL
			                                                              : vtx::compute::Predicate::Kind::IS_NOT_NULL;
			pf.display = scan.fields[pf.field].name + (type == ExpressionType::OPERATOR_IS_NULL ? " IS NULL" : " IS NOT NULL");
			bind.filters.push_back(std::move(pf));
		}
	}
	for (idx_t f = 0; f < scan.files.size(); f++) {
		if (keep[f]) {
			bind.files.push_back(scan.files[f]);
		}
	}
	return true;
}

void TryPush(ClientContext &context, const RulesTable &rules, unique_ptr<LogicalOperator> &op) {
	auto &agg = op->Cast<LogicalAggregate>();
	if (!agg.groups.empty() || agg.grouping_sets.size() > 1 || !agg.grouping_functions.empty() ||
	    agg.expressions.empty() || agg.children.size() != 1) {
		return;
	}
	Chain chain;
	if (!FindChain(*agg.children[0], chain)) {
		return;
	}
	auto bind = make_uniq<PushedBindData>();
	for (auto &e : agg.expressions) {
		if (e->GetExpressionClass() != ExpressionClass::BOUND_AGGREGATE) {
			return;
		}
		auto &a = e->Cast<BoundAggregateExpression>();
		if (a.IsDistinct() || a.filter || (a.order_bys && !a.order_bys->orders.empty())) {
			return;
		}
		PushedAggregate p;
		std::string setting;
		if (!KindOf(a.function.name, p.kind, setting) || !SettingEnabled(context, setting)) {
			return;
		}
		p.result_type = a.return_type;
		std::string type_key = "*";
		LogicalType stored = LogicalType::BIGINT;
		if (p.kind == AggregateKind::COUNT_STAR) {
			if (!a.children.empty()) {
				return;
			}
			p.display = "count_star()";
		} else {
			if (a.children.size() != 1 || !ResolveColumn(chain, *a.children[0], p.field)) {
				return;
			}
			p.bound_type = a.children[0]->return_type;
			stored = chain.scan->types[p.field];
			type_key = TypeKey(stored);
			// DuckDB's statistics pass may have bound sum(x) as its internal sum_no_overflow(x):
			// EXPLAIN shows what the user wrote.
			auto shown = a.function.name == "sum_no_overflow" ? std::string("sum") : a.function.name;
			p.display = shown + "(" + chain.scan->fields[p.field].name + ")";
		}
		auto rule = rules.Find(a.function.name, type_key);
		if (!rule || !SettingEnabled(context, rule->setting) || !NativelySupported(p, stored)) {
			return;
		}
		p.skip_nans = rule->skip_nans;
		p.empty_is_null = rule->empty_is_null;
		bind->aggregates.push_back(std::move(p));
	}
	if (!TakeFilters(context, chain, *bind)) {
		return;
	}
	bind->fields = chain.scan->fields;
	bind->field_types = chain.scan->types;

	vector<LogicalType> types;
	vector<string> names;
	for (idx_t i = 0; i < agg.expressions.size(); i++) {
		types.push_back(agg.expressions[i]->return_type);
		names.push_back(bind->aggregates[i].display);
	}
	auto get = make_uniq<LogicalGet>(agg.aggregate_index, GetPushedAggregateFunction(), std::move(bind), types, names);
	for (idx_t i = 0; i < types.size(); i++) {
		get->AddColumnId(i);
	}
	get->has_estimated_cardinality = true;
	get->estimated_cardinality = 1;
	op = std::move(get);
}

void Visit(ClientContext &context, const RulesTable &rules, unique_ptr<LogicalOperator> &op) {
	for (auto &child : op->children) {
		Visit(context, rules, child);
	}
	if (op->type == LogicalOperatorType::LOGICAL_AGGREGATE_AND_GROUP_BY) {
		TryPush(context, rules, op);
	}
}

void Optimize(OptimizerExtensionInput &input, unique_ptr<LogicalOperator> &plan) {
	if (!input.info || !SettingEnabled(input.context, "vortex_pushdown")) {
		return;
	}
	auto &rules = static_cast<const RulesTable &>(*input.info);
	Visit(input.context, rules, plan);
}

} // namespace

OptimizerExtension GetPushdownOptimizer(shared_ptr<RulesTable> rules) {
	OptimizerExtension ext;
	ext.optimize_function = Optimize;
	ext.optimizer_info = std::move(rules);
	return ext;
}

} // namespace vortex
