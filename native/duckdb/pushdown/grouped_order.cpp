#include "grouped_order.hpp"

#include "duckdb/function/create_sort_key.hpp"
#include "duckdb/planner/expression/bound_function_expression.hpp"
#include "duckdb/planner/expression/bound_columnref_expression.hpp"
#include "duckdb/planner/operator/logical_get.hpp"
#include "duckdb/planner/operator/logical_order.hpp"
#include "duckdb/planner/operator/logical_projection.hpp"
#include "compressed_materialization.hpp"
#include "grouped_aggregate.hpp"
#include "../settings.hpp"

#include <algorithm>
#include <cstring>
#include <set>

namespace vortex {

using namespace duckdb;

namespace {

//! The grouped scan below `node` through projections of plain references and filters, and the
//! key and output position that `binding` reaches; null where anything else is in the way.
LogicalGet *ResolveKey(LogicalOperator &top, ColumnBinding binding, KeyOrder &term) {
	LogicalOperator *node = &top;
	while (true) {
		switch (node->type) {
		case LogicalOperatorType::LOGICAL_PROJECTION: {
			auto &proj = node->Cast<LogicalProjection>();
			if (binding.table_index != proj.table_index || binding.column_index >= proj.expressions.size()) {
				return nullptr;
			}
			auto *e = proj.expressions[binding.column_index].get();
			if (IsCompressFunction(*e) || IsDecompressFunction(*e)) { // they keep the order
				e = e->Cast<BoundFunctionExpression>().children[0].get();
			}
			if (e->GetExpressionClass() != ExpressionClass::BOUND_COLUMN_REF) {
				return nullptr;
			}
			binding = e->Cast<BoundColumnRefExpression>().binding;
			break;
		}
		case LogicalOperatorType::LOGICAL_FILTER:
			// Streaming: keeps the rows it passes in their order, under the same bindings.
			break;
		case LogicalOperatorType::LOGICAL_GET: {
			auto &get = node->Cast<LogicalGet>();
			auto *bind = dynamic_cast<GroupedBindData *>(get.bind_data.get());
			// A sorted grouped scan hands groups on from several threads, in no order.
			if (!bind || bind->sorted || binding.table_index != get.table_index || !get.projection_ids.empty()) {
				return nullptr;
			}
			auto &ids = get.GetColumnIds();
			if (binding.column_index >= ids.size() || ids[binding.column_index].GetPrimaryIndex() >= bind->keys.size()) {
				return nullptr; // an aggregate's result, not a key
			}
			term.column = binding.column_index;
			term.key = ids[binding.column_index].GetPrimaryIndex();
			return &get;
		}
		default:
			return nullptr;
		}
		if (node->children.size() != 1) {
			return nullptr;
		}
		node = node->children[0].get();
	}
}

bool TryAbsorb(unique_ptr<LogicalOperator> &op) {
	auto &order = op->Cast<LogicalOrder>();
	if (order.HasProjectionMap() || order.children.size() != 1 || order.orders.empty()) {
		return false;
	}
	LogicalGet *scan = nullptr;
	std::vector<KeyOrder> terms;
	std::set<idx_t> keys;
	for (auto &o : order.orders) {
		// Groups are unique by their keys: once every key is ordered on (ORDER BY ALL does so
		// first), later terms cannot break a tie and need not be ordered on.
		if (scan && keys.size() == scan->bind_data->Cast<GroupedBindData>().keys.size()) {
			break;
		}
		if ((o.type != OrderType::ASCENDING && o.type != OrderType::DESCENDING) ||
		    (o.null_order != OrderByNullType::NULLS_FIRST && o.null_order != OrderByNullType::NULLS_LAST) ||
		    o.expression->GetExpressionClass() != ExpressionClass::BOUND_COLUMN_REF) {
			return false;
		}
		KeyOrder term;
		auto *get = ResolveKey(*order.children[0], o.expression->Cast<BoundColumnRefExpression>().binding, term);
		if (!get || (scan && get != scan)) {
			return false;
		}
		scan = get;
		keys.insert(term.key);
		term.descending = o.type == OrderType::DESCENDING;
		term.nulls_first = o.null_order == OrderByNullType::NULLS_FIRST;
		terms.push_back(term);
	}
	scan->bind_data->Cast<GroupedBindData>().order = std::move(terms);
	op = std::move(order.children[0]);
	return true;
}

} // namespace

void AbsorbGroupedOrder(ClientContext &context, unique_ptr<LogicalOperator> &plan) {
	if (!SettingEnabled(context, Setting::PUSHDOWN_ORDER)) {
		return;
	}
	Value preserve;
	if (!context.TryGetCurrentSetting("preserve_insertion_order", preserve) || preserve.IsNull() ||
	    !BooleanValue::Get(preserve.DefaultCastAs(LogicalType::BOOLEAN))) {
		return;
	}
	// Only the query's own ORDER BY: below a join, a window or a LIMIT, order would not reach
	// the result the way the scan emits it.
	// (EXPLAIN shows the plan below it as the query runs it.)
	unique_ptr<LogicalOperator> *node = &plan;
	while (((*node)->type == LogicalOperatorType::LOGICAL_PROJECTION ||
	        (*node)->type == LogicalOperatorType::LOGICAL_EXPLAIN) &&
	       (*node)->children.size() == 1) {
		node = &(*node)->children[0];
	}
	if ((*node)->type == LogicalOperatorType::LOGICAL_ORDER_BY) {
		TryAbsorb(*node);
	}
}

void SortRows(std::vector<vector<Value>> &rows, const std::vector<KeyOrder> &order) {
	if (order.empty() || rows.size() < 2) {
		return;
	}
	// DuckDB's own sort keys (as create_sort_key makes them): one byte string per row whose
	// bytewise order is the ORDER BY's, NULL order and direction included, built a column at a
	// time; the rows are then sorted by comparing those strings.
	const idx_t n = rows.size();
	vector<LogicalType> types;
	vector<OrderModifiers> modifiers;
	for (auto &term : order) {
		types.push_back(rows[0][term.column].type());
		modifiers.emplace_back(term.descending ? OrderType::DESCENDING : OrderType::ASCENDING,
		                       term.nulls_first ? OrderByNullType::NULLS_FIRST : OrderByNullType::NULLS_LAST);
	}
	DataChunk keys;
	keys.Initialize(Allocator::DefaultAllocator(), types, n);
	for (idx_t c = 0; c < order.size(); c++) {
		for (idx_t r = 0; r < n; r++) {
			keys.data[c].SetValue(r, rows[r][order[c].column]);
		}
	}
	keys.SetCardinality(n);
	Vector sort_keys(LogicalType::BLOB, n);
	CreateSortKeyHelpers::CreateSortKey(keys, modifiers, sort_keys);
	auto key = FlatVector::GetData<string_t>(sort_keys);
	std::vector<idx_t> permutation(n);
	for (idx_t r = 0; r < n; r++) {
		permutation[r] = r;
	}
	std::sort(permutation.begin(), permutation.end(), [&](idx_t a, idx_t b) {
		const auto &x = key[a], &y = key[b];
		const int c = std::memcmp(x.GetData(), y.GetData(), std::min(x.GetSize(), y.GetSize()));
		return c != 0 ? c < 0 : x.GetSize() < y.GetSize();
	});
	std::vector<vector<Value>> sorted;
	sorted.reserve(n);
	for (auto r : permutation) {
		sorted.push_back(std::move(rows[r]));
	}
	rows = std::move(sorted);
}

} // namespace vortex
