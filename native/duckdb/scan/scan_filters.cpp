#include "scan_filters.hpp"

#include "../settings.hpp"
#include "../type_mapping.hpp"
#include "../expr/struct_access.hpp"
#include "duckdb/planner/expression/bound_between_expression.hpp"
#include "duckdb/planner/expression/bound_comparison_expression.hpp"
#include "duckdb/planner/expression/bound_conjunction_expression.hpp"
#include "duckdb/planner/expression/bound_function_expression.hpp"
#include "duckdb/planner/expression/bound_reference_expression.hpp"
#include "duckdb/planner/expression_iterator.hpp"
#include "duckdb/common/multi_file/multi_file_reader.hpp"
#include "duckdb/execution/expression_executor.hpp"
#include "duckdb/planner/expression/bound_columnref_expression.hpp"
#include "duckdb/planner/expression/bound_operator_expression.hpp"
#include "duckdb/planner/operator/logical_get.hpp"
#include "duckdb/planner/expression/bound_constant_expression.hpp"
#include "duckdb/planner/filter/conjunction_filter.hpp"
#include "duckdb/planner/filter/constant_filter.hpp"
#include "duckdb/planner/filter/dynamic_filter.hpp"
#include "duckdb/planner/filter/in_filter.hpp"
#include "duckdb/planner/filter/null_filter.hpp"
#include "duckdb/planner/filter/optional_filter.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

namespace vortex {

using namespace duckdb;
using vtx::compute::CompareOp;
using vtx::compute::Predicate;

namespace {
bool RowNumberOf(const Value &v, int64_t &out) {
	if (v.IsNull() || v.type().id() != LogicalTypeId::BIGINT) {
		return false;
	}
	out = v.GetValue<int64_t>();
	return true;
}

} // namespace

RowRanges IntersectRows(const RowRanges &a, const RowRanges &b) {
	RowRanges out;
	for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
		const int64_t lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
		if (lo < hi) {
			out.emplace_back(lo, hi);
		}
		(a[i].second < b[j].second ? i : j)++;
	}
	return out;
}

namespace {
RowRanges Unite(RowRanges a, const RowRanges &b) {
	a.insert(a.end(), b.begin(), b.end());
	std::sort(a.begin(), a.end());
	RowRanges out;
	for (auto &r : a) {
		if (!out.empty() && r.first <= out.back().second) {
			out.back().second = std::max(out.back().second, r.second);
		} else {
			out.push_back(r);
		}
	}
	return out;
}

//! The rows of [lo, hi) that satisfy `row <op> v`.
bool ComparisonRows(ExpressionType op, int64_t v, int64_t lo, int64_t hi, RowRanges &out) {
	int64_t from = lo, to = hi;
	switch (op) {
	case ExpressionType::COMPARE_EQUAL: from = std::max(lo, v), to = v < INT64_MAX ? std::min(hi, v + 1) : hi; break;
	case ExpressionType::COMPARE_GREATERTHAN: from = v < INT64_MAX ? std::max(lo, v + 1) : hi; break;
	case ExpressionType::COMPARE_GREATERTHANOREQUALTO: from = std::max(lo, v); break;
	case ExpressionType::COMPARE_LESSTHAN: to = std::min(hi, v); break;
	case ExpressionType::COMPARE_LESSTHANOREQUALTO: to = v < INT64_MAX ? std::min(hi, v + 1) : hi; break;
	default: return false;
	}
	out.clear();
	if (from < to) {
		out.emplace_back(from, to);
	}
	return true;
}
} // namespace

bool RowsKept(const TableFilter &filter, int64_t lo, int64_t hi, RowRanges &out) {
	int64_t v;
	switch (filter.filter_type) {
	case TableFilterType::CONSTANT_COMPARISON: {
		auto &c = filter.Cast<ConstantFilter>();
		return RowNumberOf(c.constant, v) && ComparisonRows(c.comparison_type, v, lo, hi, out);
	}
	case TableFilterType::IN_FILTER: {
		std::vector<int64_t> rows;
		for (auto &value : filter.Cast<InFilter>().values) {
			if (!RowNumberOf(value, v)) {
				return false;
			}
			if (v >= lo && v < hi) {
				rows.push_back(v);
			}
		}
		std::sort(rows.begin(), rows.end());
		rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
		out.clear();
		for (auto r : rows) {
			out.emplace_back(r, r + 1);
		}
		return true;
	}
	case TableFilterType::CONJUNCTION_AND:
	case TableFilterType::CONJUNCTION_OR: {
		const bool all = filter.filter_type == TableFilterType::CONJUNCTION_AND;
		auto &children = all ? filter.Cast<ConjunctionAndFilter>().child_filters
		                     : filter.Cast<ConjunctionOrFilter>().child_filters;
		RowRanges acc, child;
		if (all) {
			acc.emplace_back(lo, hi);
		}
		for (auto &c : children) {
			if (!RowsKept(*c, lo, hi, child)) {
				return false;
			}
			acc = all ? IntersectRows(acc, child) : Unite(std::move(acc), child);
		}
		out = std::move(acc);
		return true;
	}
	case TableFilterType::OPTIONAL_FILTER: {
		// Implied by operators DuckDB keeps above the scan: applying it is allowed, not required.
		auto &child = filter.Cast<OptionalFilter>().child_filter;
		if (!child || !RowsKept(*child, lo, hi, out)) {
			out.assign(1, {lo, hi});
		}
		return true;
	}
	case TableFilterType::DYNAMIC_FILTER: {
		auto &data = filter.Cast<DynamicFilter>().filter_data;
		out.assign(1, {lo, hi});
		if (!data) {
			return true;
		}
		lock_guard<mutex> guard(data->lock);
		if (data->initialized && data->filter && RowNumberOf(data->filter->constant, v) &&
		    !ComparisonRows(data->filter->comparison_type, v, lo, hi, out)) {
			out.assign(1, {lo, hi});
		}
		return true;
	}
	default:
		return false;
	}
}

bool SupportsFilterOn(const ScanBindData &bind, idx_t column) {
	if (column < bind.fields.size()) {
		return vtx::compute::PredicateSupported(bind.fields[column].type);
	}
	Value unused;
	return bind.files.empty() ? false : FileConstant(bind, column, 0, unused);
}

namespace {

//! `filename` and partition-key values: the one place their column ids are worked out, from the
//! id the `filename` column has (or would have).
bool PathConstant(size_t filename_index, bool filename_column, const HivePartitions &hive, idx_t column, idx_t file,
                  const std::string &path, Value &out) {
	const size_t hive_base = filename_index + (filename_column ? 1 : 0);
	if (column >= hive_base && column < hive_base + hive.keys.size()) {
		out = hive.values[file][column - hive_base];
		return true;
	}
	if ((filename_column && column == filename_index) ||
	    (!filename_column && column == MultiFileReader::COLUMN_IDENTIFIER_FILENAME)) {
		out = Value(path);
		return true;
	}
	return false;
}

} // namespace

bool FileColumns::Constant(idx_t column, idx_t file, const std::string &path, Value &out) const {
	return PathConstant(field_count, filename_column, hive, column, file, path, out);
}

bool FileConstant(const ScanBindData &bind, idx_t column, idx_t file, Value &out) {
	auto replaced = bind.hive_fields.find(column);
	if (replaced != bind.hive_fields.end()) {
		out = replaced->second[file];
		return true;
	}
	if (PathConstant(bind.FilenameIndex(), bind.filename_column, bind.hive, column, file, bind.files[file].path, out)) {
		return true;
	}
	if (column == MultiFileReader::COLUMN_IDENTIFIER_FILE_INDEX) {
		out = Value::UBIGINT(file);
		return true;
	}
	return false;
}

namespace {

bool Constant(const Expression &e);

//! A column, or a field of a struct column (DuckDB makes StructFilters of comparisons on those).
bool Plain(const Expression &e) {
	if (e.GetExpressionClass() == ExpressionClass::BOUND_FUNCTION) {
		auto &fn = e.Cast<BoundFunctionExpression>();
		auto &name = fn.function.name;
		return (name == "struct_extract" || name == "struct_extract_at" || name == "array_extract") &&
		       fn.children.size() == 2 && fn.children[0]->return_type.id() == LogicalTypeId::STRUCT &&
		       Constant(*fn.children[1]) && Plain(*fn.children[0]);
	}
	return e.GetExpressionClass() == ExpressionClass::BOUND_COLUMN_REF;
}

bool Constant(const Expression &e) {
	return e.GetExpressionClass() == ExpressionClass::BOUND_CONSTANT;
}

//! Shapes DuckDB turns into exact table filters itself, or keeps as IS [NOT] NULL (which the
//! pushed aggregates take from the FILTER): a plain column against constants. DuckDB's estimates
//! (join order) are built on its table filters, so these stay DuckDB's.
bool LeftToDuckDB(const Expression &e) {
	switch (e.GetExpressionClass()) {
	case ExpressionClass::BOUND_COMPARISON: {
		// Not IS [NOT] DISTINCT FROM, nor comparisons of whole nested values: DuckDB keeps those in
		// its FILTER.
		switch (e.GetExpressionType()) {
		case ExpressionType::COMPARE_EQUAL:
		case ExpressionType::COMPARE_NOTEQUAL:
		case ExpressionType::COMPARE_LESSTHAN:
		case ExpressionType::COMPARE_GREATERTHAN:
		case ExpressionType::COMPARE_LESSTHANOREQUALTO:
		case ExpressionType::COMPARE_GREATERTHANOREQUALTO:
			break;
		default:
			return false;
		}
		auto &c = e.Cast<BoundComparisonExpression>();
		if (c.left->return_type.IsNested()) {
			return false;
		}
		return (Plain(*c.left) && Constant(*c.right)) || (Constant(*c.left) && Plain(*c.right));
	}
	case ExpressionClass::BOUND_BETWEEN: {
		auto &b = e.Cast<BoundBetweenExpression>();
		return Plain(*b.input) && Constant(*b.lower) && Constant(*b.upper);
	}
	case ExpressionClass::BOUND_OPERATOR:
		// Only of a whole column of a flat type (NoteNullFilter); of a struct's field or a nested
		// column it is the scan's to take.
		return (e.GetExpressionType() == ExpressionType::OPERATOR_IS_NULL ||
		        e.GetExpressionType() == ExpressionType::OPERATOR_IS_NOT_NULL) &&
		       e.Cast<BoundOperatorExpression>().children.size() == 1 &&
		       e.Cast<BoundOperatorExpression>().children[0]->GetExpressionClass() == ExpressionClass::BOUND_COLUMN_REF &&
		       !e.Cast<BoundOperatorExpression>().children[0]->return_type.IsNested();
	default:
		return false;
	}
}

//! Columns a taken filter may read: file columns, partition keys, the file name (not the file's
//! index: it depends on the file list, which a pushed aggregate prunes).
bool Readable(const ScanBindData &bind, idx_t id) {
	Value unused;
	return id < bind.fields.size() ||
	       (!bind.files.empty() && id != MultiFileReader::COLUMN_IDENTIFIER_FILE_INDEX && FileConstant(bind, id, 0, unused));
}

//! Rewrites references to the scan's columns into references to the filter's inputs (one per
//! distinct column, in `columns`); false where the expression reads anything else.
bool BindInputs(unique_ptr<Expression> &e, const LogicalGet &get, const ScanBindData &bind, std::vector<idx_t> &columns) {
	if (e->GetExpressionClass() == ExpressionClass::BOUND_COLUMN_REF) {
		auto &ref = e->Cast<BoundColumnRefExpression>();
		auto &ids = get.GetColumnIds();
		if (ref.binding.table_index != get.table_index || ref.binding.column_index >= ids.size()) {
			return false;
		}
		const idx_t id = ids[ref.binding.column_index].GetPrimaryIndex();
		if (!Readable(bind, id) || ref.return_type != bind.ColumnType(id)) {
			return false;
		}
		auto at = std::find(columns.begin(), columns.end(), id);
		const idx_t input = static_cast<idx_t>(at - columns.begin());
		if (at == columns.end()) {
			columns.push_back(id);
		}
		e = make_uniq<BoundReferenceExpression>(ref.return_type, input);
		return true;
	}
	bool ok = true;
	ExpressionIterator::EnumerateChildren(*e, [&](unique_ptr<Expression> &child) {
		ok = ok && BindInputs(child, get, bind, columns);
	});
	return ok;
}

bool Input0(const Expression &e) {
	return e.GetExpressionClass() == ExpressionClass::BOUND_REF && e.Cast<BoundReferenceExpression>().index == 0;
}

//! The filter as an exact predicate on its one input, where it is made of comparisons of that
//! input with constants, IN lists, IS [NOT] NULL, AND and OR (the shapes DuckDB pushes into scans
//! only as optional filters): zone statistics then classify zones by it.
bool ToPredicate(const Expression &e, const LogicalType &type, Predicate &out) {
	switch (e.GetExpressionClass()) {
	case ExpressionClass::BOUND_COMPARISON: {
		auto &c = e.Cast<BoundComparisonExpression>();
		CompareOp op;
		const bool flipped = Constant(*c.left) && Input0(*c.right);
		if ((!flipped && !(Input0(*c.left) && Constant(*c.right))) ||
		    !CompareOpOf(flipped ? FlipComparisonExpression(e.GetExpressionType()) : e.GetExpressionType(), op)) {
			return false;
		}
		std::string raw;
		if (!ValueToRaw(type, (flipped ? *c.left : *c.right).Cast<BoundConstantExpression>().value, raw)) {
			return false;
		}
		out = Predicate::Compare(op, std::move(raw));
		return true;
	}
	case ExpressionClass::BOUND_CONJUNCTION: {
		auto &c = e.Cast<BoundConjunctionExpression>();
		Predicate p;
		p.kind = e.GetExpressionType() == ExpressionType::CONJUNCTION_AND ? Predicate::Kind::AND : Predicate::Kind::OR;
		for (auto &child : c.children) {
			Predicate cp;
			if (!ToPredicate(*child, type, cp)) {
				return false;
			}
			p.children.push_back(std::move(cp));
		}
		out = std::move(p);
		return true;
	}
	case ExpressionClass::BOUND_OPERATOR: {
		auto &op = e.Cast<BoundOperatorExpression>();
		if (op.children.empty() || !Input0(*op.children[0])) {
			return false;
		}
		vtx::ColumnType ct;
		if (!ToColumnType(type, ct) || !vtx::compute::PredicateSupported(ct)) {
			return false;
		}
		out = Predicate();
		switch (e.GetExpressionType()) {
		case ExpressionType::OPERATOR_IS_NULL: out.kind = Predicate::Kind::IS_NULL; return op.children.size() == 1;
		case ExpressionType::OPERATOR_IS_NOT_NULL: out.kind = Predicate::Kind::IS_NOT_NULL; return op.children.size() == 1;
		case ExpressionType::COMPARE_IN:
			out.kind = Predicate::Kind::IN;
			for (idx_t i = 1; i < op.children.size(); i++) {
				if (!Constant(*op.children[i])) {
					return false;
				}
				auto &v = op.children[i]->Cast<BoundConstantExpression>().value;
				if (v.IsNull()) {
					continue; // never equal: the row is then NULL or another value's match
				}
				std::string raw;
				if (!ValueToRaw(type, v, raw)) {
					return false;
				}
				out.values.push_back(std::move(raw));
			}
			return true;
		default:
			return false;
		}
	}
	default:
		return false;
	}
}

//! Takes `e` into the scan when it is deterministic, cannot raise an error, reads only the
//! scan's columns, and is not a shape DuckDB makes a table filter of.
bool TakeExpression(const LogicalGet &get, const ScanBindData &bind, const Expression &e, ExpressionFilter &out) {
	if (e.IsVolatile() || e.HasParameter() || e.HasSubquery() || LeftToDuckDB(e) || MayThrow(e) || FoldedByDuckDB(e) ||
	    e.return_type != LogicalType::BOOLEAN) {
		return false;
	}
	auto copy = e.Copy();
	std::vector<idx_t> columns;
	if (!BindInputs(copy, get, bind, columns) || columns.empty()) {
		return false;
	}
	out.expression = std::move(copy);
	out.columns = std::move(columns);
	out.display = e.ToString();
	out.has_predicate = out.columns.size() == 1 && out.columns[0] < bind.fields.size() &&
	                    ToPredicate(*out.expression, bind.types[out.columns[0]], out.predicate);
	return true;
}

//! Notes a `column IS [NOT] NULL` filter, which stays above the scan, for zone skipping.
void NoteNullFilter(const LogicalGet &get, ScanBindData &bind, const Expression &f) {
	auto type = f.GetExpressionType();
	if ((type != ExpressionType::OPERATOR_IS_NULL && type != ExpressionType::OPERATOR_IS_NOT_NULL) ||
	    f.GetExpressionClass() != ExpressionClass::BOUND_OPERATOR) {
		return;
	}
	auto &op = f.Cast<BoundOperatorExpression>();
	if (op.children.size() != 1 || op.children[0]->GetExpressionClass() != ExpressionClass::BOUND_COLUMN_REF) {
		return;
	}
	auto &ref = op.children[0]->Cast<BoundColumnRefExpression>();
	auto &ids = get.GetColumnIds();
	if (ref.binding.table_index != get.table_index || ref.binding.column_index >= ids.size()) {
		return;
	}
	auto field = ids[ref.binding.column_index].GetPrimaryIndex();
	std::pair<idx_t, bool> note(field, type == ExpressionType::OPERATOR_IS_NULL);
	if (field < bind.fields.size() &&
	    std::find(bind.null_filters.begin(), bind.null_filters.end(), note) == bind.null_filters.end()) {
		bind.null_filters.push_back(note);
	}
}

//! A filter as an exact predicate on one file column, where it has that form.
struct OneColumn {
	bool exact = false;
	idx_t field = 0;
	Predicate predicate;
};

OneColumn OneColumnOf(const LogicalGet &get, const ScanBindData &bind, const Expression &e) {
	OneColumn out;
	if (e.IsVolatile() || e.HasParameter() || e.HasSubquery() || e.return_type != LogicalType::BOOLEAN) {
		return out;
	}
	auto copy = e.Copy();
	std::vector<idx_t> columns;
	if (BindInputs(copy, get, bind, columns) && columns.size() == 1 && columns[0] < bind.fields.size()) {
		out.field = columns[0];
		out.exact = ToPredicate(*copy, bind.types[out.field], out.predicate);
	}
	return out;
}

//! The file columns whose filters contradict one another: no value satisfies all of the exact
//! one-column predicates on them, those offered here (`single`, one per filter) and those already
//! table filters (DuckDB offers filters again once earlier ones became table filters, keyed by
//! column id). Such filters are left above the scan, where DuckDB's statistics prove the
//! conjunction empty (`x IN (1, 2) AND x > 5`) and no scan is planned; taken, every zone is read.
std::set<idx_t> ContradictedColumns(const LogicalGet &get, const ScanBindData &bind, const std::vector<OneColumn> &single) {
	std::map<idx_t, Predicate> conjunctions;
	for (auto &one : single) {
		if (one.exact) {
			auto &all = conjunctions[one.field];
			all.kind = Predicate::Kind::AND;
			all.children.push_back(one.predicate);
		}
	}
	std::set<idx_t> contradicted;
	for (auto &entry : conjunctions) {
		const idx_t field = entry.first;
		auto &all = entry.second;
		for (auto &filter : get.table_filters.filters) {
			Predicate p;
			bool dynamic = false;
			if (filter.first == field && TranslateFilter(*filter.second, bind.types[field], FilterUse::SCAN, p, dynamic) &&
			    !dynamic) {
				all.children.push_back(std::move(p));
			}
		}
		if (all.children.size() > 1 && !vtx::compute::Satisfiable(all, bind.fields[field].type)) {
			contradicted.insert(field);
		}
	}
	return contradicted;
}

} // namespace

// DuckDB calls this more than once per plan (filter pushdown runs again for CTEs and for join
// statistics), each time with the filters then at this scan: what was taken before has left the
// plan, so nothing is cleared here.
void ScanComplexFilter(ClientContext &context, LogicalGet &get, FunctionData *bind_data,
                       vector<unique_ptr<Expression>> &filters) {
	auto &bind = bind_data->Cast<ScanBindData>();
	if (!bind.uniform) {
		return; // zone statistics are per file field (schema_union.hpp): filters stay DuckDB's
	}
	const bool take = SettingEnabled(context, Setting::PUSHDOWN_EXPRESSIONS);
	if (take) {
		for (auto &f : filters) {
			StructSubscriptsAsExtracts(context, f);
		}
	}
	std::vector<OneColumn> single;
	for (idx_t i = 0; take && i < filters.size(); i++) {
		single.push_back(OneColumnOf(get, bind, *filters[i]));
	}
	const auto contradicted = ContradictedColumns(get, bind, single);
	for (idx_t i = 0; i < filters.size();) {
		NoteNullFilter(get, bind, *filters[i]);
		ExpressionFilter taken;
		if (take && TakeExpression(get, bind, *filters[i], taken) &&
		    !(taken.has_predicate && contradicted.count(taken.columns[0]))) {
			bind.expression_filters.push_back(std::move(taken));
			filters.erase_at(i);
			continue;
		}
		i++;
	}
}

} // namespace vortex
