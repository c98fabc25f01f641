#include "expression_filter.hpp"

#include "../column_emit.hpp"
#include "monotone_functions.hpp"
#include "../../compute/selection.hpp"
#include "../type_mapping.hpp"
#include "duckdb/common/enums/date_part_specifier.hpp"
#include "duckdb/planner/expression/bound_between_expression.hpp"
#include "duckdb/planner/expression/bound_cast_expression.hpp"
#include "duckdb/planner/expression/bound_comparison_expression.hpp"
#include "duckdb/planner/expression/bound_conjunction_expression.hpp"
#include "duckdb/planner/expression/bound_constant_expression.hpp"
#include "duckdb/planner/expression/bound_function_expression.hpp"
#include "duckdb/planner/expression/bound_operator_expression.hpp"
#include "duckdb/planner/expression/bound_reference_expression.hpp"
#include "duckdb/planner/expression_iterator.hpp"

namespace vortex {

using namespace duckdb;

ExpressionFilter::ExpressionFilter(const ExpressionFilter &o)
    : expression(o.expression ? o.expression->Copy() : nullptr), columns(o.columns), display(o.display),
      has_predicate(o.has_predicate), predicate(o.predicate) {
}

ExpressionFilter &ExpressionFilter::operator=(const ExpressionFilter &o) {
	if (this != &o) {
		*this = ExpressionFilter(o);
	}
	return *this;
}

bool ExpressionFilter::Equals(const ExpressionFilter &o) const {
	return columns == o.columns && has_predicate == o.has_predicate && predicate == o.predicate &&
	       expression->Equals(*o.expression);
}

bool SameFilters(const std::vector<ExpressionFilter> &a, const std::vector<ExpressionFilter> &b) {
	if (a.size() != b.size()) {
		return false;
	}
	for (size_t i = 0; i < a.size(); i++) {
		if (!a[i].Equals(b[i])) {
			return false;
		}
	}
	return true;
}

void SerializeExpressionFilters(Serializer &s, field_id_t id, const std::vector<ExpressionFilter> &filters) {
	s.WriteList(id, "expression_filters", filters.size(), [&](Serializer::List &list, idx_t i) {
		list.WriteObject([&](Serializer &obj) {
			auto &f = filters[i];
			obj.WriteProperty(1, "expression", f.expression);
			obj.WriteProperty<vector<idx_t>>(2, "columns", vector<idx_t>(f.columns.begin(), f.columns.end()));
			obj.WriteProperty<string>(3, "display", f.display);
			obj.WriteProperty<bool>(4, "has_predicate", f.has_predicate);
			vtx::ByteWriter w;
			f.predicate.Serialize(w);
			obj.WriteProperty<vector<uint8_t>>(5, "predicate", vector<uint8_t>(w.data.begin(), w.data.end()));
		});
	});
}

std::vector<ExpressionFilter> DeserializeExpressionFilters(Deserializer &d, field_id_t id) {
	std::vector<ExpressionFilter> out;
	d.ReadList(id, "expression_filters", [&](Deserializer::List &list, idx_t) {
		list.ReadObject([&](Deserializer &obj) {
			ExpressionFilter f;
			f.expression = obj.ReadProperty<unique_ptr<Expression>>(1, "expression");
			auto columns = obj.ReadProperty<vector<idx_t>>(2, "columns");
			f.columns.assign(columns.begin(), columns.end());
			f.display = obj.ReadProperty<string>(3, "display");
			f.has_predicate = obj.ReadProperty<bool>(4, "has_predicate");
			auto bytes = obj.ReadProperty<vector<uint8_t>>(5, "predicate");
			vtx::ByteReader r(bytes.data(), bytes.size(), "a serialized predicate");
			f.predicate = vtx::compute::Predicate::Deserialize(r);
			out.push_back(std::move(f));
		});
	});
	return out;
}

std::string FiltersDisplay(const std::vector<ExpressionFilter> &filters) {
	std::string text;
	for (auto &f : filters) {
		text += (text.empty() ? "" : "\n") + f.display;
	}
	return text;
}

// ---- which expressions may raise an error ---------------------------------------------------

namespace {

bool IntegerType(const LogicalType &t) {
	switch (t.id()) {
	case LogicalTypeId::TINYINT:
	case LogicalTypeId::SMALLINT:
	case LogicalTypeId::INTEGER:
	case LogicalTypeId::BIGINT:
	case LogicalTypeId::HUGEINT:
	case LogicalTypeId::UTINYINT:
	case LogicalTypeId::USMALLINT:
	case LogicalTypeId::UINTEGER:
	case LogicalTypeId::UBIGINT:
	case LogicalTypeId::UHUGEINT:
		return true;
	default:
		return false;
	}
}

//! The decimal digits every value of an integer type may need (INTEGER: 10 for 2147483647).
int IntegerDigits(const LogicalType &t) {
	switch (t.id()) {
	case LogicalTypeId::TINYINT:
	case LogicalTypeId::UTINYINT: return 3;
	case LogicalTypeId::SMALLINT:
	case LogicalTypeId::USMALLINT: return 5;
	case LogicalTypeId::INTEGER:
	case LogicalTypeId::UINTEGER: return 10;
	case LogicalTypeId::BIGINT: return 19;
	case LogicalTypeId::UBIGINT: return 20;
	default: return 39; // HUGEINT, UHUGEINT
	}
}

//! `date_trunc(part, ts)` of a TIMESTAMP to a day or a finer part (to a day only, with
//! `day_only`): a value within the TIMESTAMP range, since its first timestamp is a midnight. (Not
//! coarser parts: a week or a month begins before the first timestamp, which DuckDB 1.5 then
//! cannot represent.)
bool TruncatedTimestamp(const Expression &e, bool day_only) {
	DatePartSpecifier spec;
	const Expression *input = nullptr;
	if (!DateTruncOf(e, spec, input) || input->return_type.id() != LogicalTypeId::TIMESTAMP) {
		return false;
	}
	switch (spec) {
	case DatePartSpecifier::DAY:
		return true;
	case DatePartSpecifier::HOUR:
	case DatePartSpecifier::MINUTE:
	case DatePartSpecifier::SECOND:
	case DatePartSpecifier::MILLISECONDS:
	case DatePartSpecifier::MICROSECONDS:
		return !day_only;
	default:
		return false;
	}
}

//! Casts that no input can make fail: to the same type, integers to wider integers of the same
//! signedness or to a wider signed one, numbers to floating point, integers and DECIMALs to a
//! DECIMAL with room for their integer digits, DECIMALs to an integer that holds them, TIMESTAMP to
//! DATE, a timestamp's day back to TIMESTAMP, numbers, dates and times to VARCHAR. (DuckDB's own CanThrow misses narrowing casts within
//! one type id, e.g. DECIMAL(18,3) to DECIMAL(4,1).)
bool SafeCast(const BoundCastExpression &cast) {
	if (cast.try_cast) {
		return true; // a failed TRY_CAST is NULL, not an error
	}
	auto &from = cast.child->return_type;
	auto &to = cast.return_type;
	if (from == to) {
		return true;
	}
	if (to.id() == LogicalTypeId::DOUBLE || to.id() == LogicalTypeId::FLOAT) {
		// Rounds; never out of range, but for a FLOAT from the largest UHUGEINTs: 2^128 - 1 rounds
		// past FLT_MAX (DuckDB 1.4 gives infinity; left to DuckDB rather than relied on).
		if (to.id() == LogicalTypeId::FLOAT && from.id() == LogicalTypeId::UHUGEINT) {
			return false;
		}
		return IntegerType(from) || from.id() == LogicalTypeId::FLOAT || from.id() == LogicalTypeId::DECIMAL;
	}
	if (to.id() == LogicalTypeId::DECIMAL) {
		// Fails only when the integer part does not fit: DuckDB compares against 10^(width - scale).
		const int to_digits = int(DecimalType::GetWidth(to)) - int(DecimalType::GetScale(to));
		if (from.id() == LogicalTypeId::DECIMAL) {
			// Dropping scale rounds up, which can carry into one more integer digit (9.96 -> 10.0).
			const int from_digits = int(DecimalType::GetWidth(from)) - int(DecimalType::GetScale(from));
			return to_digits > from_digits ||
			       (to_digits == from_digits && DecimalType::GetScale(to) >= DecimalType::GetScale(from));
		}
		return IntegerType(from) && to_digits >= IntegerDigits(from);
	}
	if (to.id() == LogicalTypeId::DATE) {
		return from.id() == LogicalTypeId::TIMESTAMP; // the day of a timestamp; infinities stay infinite
	}
	if (to.id() == LogicalTypeId::TIMESTAMP && from.id() == LogicalTypeId::DATE && TruncatedTimestamp(*cast.child, true)) {
		return true; // back to the timestamp it came from, truncated (DuckDB 1.4 types the day a DATE)
	}
	if (from.id() == LogicalTypeId::DECIMAL && IntegerType(to) && to.IsSigned()) {
		// Rounds to the nearest integer: fits when 10^(width - scale) does, with room for the rounding.
		const int from_digits = int(DecimalType::GetWidth(from)) - int(DecimalType::GetScale(from));
		return from_digits < IntegerDigits(to);
	}
	if (to.id() == LogicalTypeId::VARCHAR) {
		// Every value of these has a text form.
		switch (from.id()) {
		case LogicalTypeId::BOOLEAN:
		case LogicalTypeId::FLOAT:
		case LogicalTypeId::DOUBLE:
		case LogicalTypeId::DECIMAL:
		case LogicalTypeId::DATE:
		case LogicalTypeId::TIME:
		case LogicalTypeId::TIMESTAMP:
			return true;
		default:
			return IntegerType(from);
		}
	}
	if (!IntegerType(from) || !IntegerType(to)) {
		return false;
	}
	const auto fw = GetTypeIdSize(from.InternalType()), tw = GetTypeIdSize(to.InternalType());
	const bool fs = from.IsSigned(), ts = to.IsSigned();
	return fs == ts ? tw >= fw : (!fs && ts && tw > fw);
}

bool ConstantInteger(const Expression &e, hugeint_t &out) {
	if (e.GetExpressionClass() != ExpressionClass::BOUND_CONSTANT) {
		return false;
	}
	auto &v = e.Cast<BoundConstantExpression>().value;
	if (v.IsNull() || !IntegerType(v.type())) {
		return false;
	}
	out = v.DefaultCastAs(LogicalType::HUGEINT).GetValue<hugeint_t>();
	return true;
}

//! Integer division and modulo raise errors only for a divisor of 0 or -1 (overflow).
bool SafeByConstantDivisor(const BoundFunctionExpression &fn) {
	auto &name = fn.function.name;
	if ((name != "%" && name != "mod" && name != "//") || fn.children.size() != 2) {
		return false;
	}
	hugeint_t divisor;
	return ConstantInteger(*fn.children[1], divisor) && divisor != hugeint_t(0) && divisor != hugeint_t(-1);
}

//! substring raises an error for offsets and lengths beyond 32 bits, which DuckDB does not
//! declare: only constant ones that are in range are safe.
bool SubstringFunction(const BoundFunctionExpression &fn, bool &safe) {
	auto &name = fn.function.name;
	if (name != "substring" && name != "substr" && name != "substring_grapheme") {
		return false;
	}
	safe = true;
	for (idx_t i = 1; i < fn.children.size(); i++) {
		hugeint_t v;
		safe = safe && ConstantInteger(*fn.children[i], v) && v > hugeint_t(-(int64_t(1) << 31)) &&
		       v < hugeint_t(int64_t(1) << 31);
	}
	return true;
}

//! regexp_matches and regexp_full_match raise errors only when compiling a pattern given per row;
//! a constant pattern (and constant options) is compiled when the executor starts, which the scan
//! does as DuckDB's FILTER would: before any row.
bool ConstantRegexp(const BoundFunctionExpression &fn) {
	auto &name = fn.function.name;
	if ((name != "regexp_matches" && name != "regexp_full_match") || fn.children.size() < 2) {
		return false;
	}
	for (idx_t i = 1; i < fn.children.size(); i++) {
		auto &c = *fn.children[i];
		if (c.GetExpressionClass() != ExpressionClass::BOUND_CONSTANT || c.Cast<BoundConstantExpression>().value.IsNull()) {
			return false;
		}
	}
	return true;
}

//! Calendar fields DuckDB declares fallible as a family (with the INTERVAL and time zone forms),
//! though for a DATE or TIMESTAMP they are arithmetic on the day number that cannot fail, and an
//! infinite value gives NULL.
bool SafeDatePart(const BoundFunctionExpression &fn) {
	// Not the ISO week fields (week, yearweek, isoyear): near the last representable date they
	// build January 1st of the next year, which can be out of range and raise an error.
	static const char *const kParts[] = {"year",   "month",   "day",        "dayofmonth", "quarter", "dayofweek",
	                                     "isodow", "weekday", "dayofyear",  "decade",     "century", "millennium",
	                                     "era"};
	if (fn.children.size() != 1) {
		return false;
	}
	auto arg = fn.children[0]->return_type.id();
	if (arg != LogicalTypeId::DATE && arg != LogicalTypeId::TIMESTAMP) {
		return false;
	}
	for (auto part : kParts) {
		if (fn.function.name == part) {
			return true;
		}
	}
	return false;
}

bool ChildrenMayThrow(const Expression &e) {
	bool any = false;
	ExpressionIterator::EnumerateChildren(e, [&](const Expression &child) { any = any || MayThrow(child); });
	return any;
}

} // namespace

bool MayThrow(const Expression &e) {
	switch (e.GetExpressionClass()) {
	case ExpressionClass::BOUND_CONSTANT:
	case ExpressionClass::BOUND_COLUMN_REF:
	case ExpressionClass::BOUND_REF:
		return false;
	case ExpressionClass::BOUND_CAST: {
		auto &cast = e.Cast<BoundCastExpression>();
		return !SafeCast(cast) || MayThrow(*cast.child);
	}
	case ExpressionClass::BOUND_FUNCTION: {
		auto &fn = e.Cast<BoundFunctionExpression>();
		if (SafeByConstantDivisor(fn)) {
			return MayThrow(*fn.children[0]);
		}
		if (ConstantRegexp(fn) || SafeDatePart(fn)) {
			return MayThrow(*fn.children[0]);
		}
		if (TruncatedTimestamp(fn, false)) {
			return MayThrow(*fn.children[1]);
		}
		bool safe;
		if (SubstringFunction(fn, safe)) {
			return !safe || MayThrow(*fn.children[0]);
		}
		return fn.function.errors == FunctionErrors::CAN_THROW_RUNTIME_ERROR || ChildrenMayThrow(e);
	}
	case ExpressionClass::BOUND_COMPARISON:
	case ExpressionClass::BOUND_CONJUNCTION:
	case ExpressionClass::BOUND_BETWEEN:
	case ExpressionClass::BOUND_CASE:
		return ChildrenMayThrow(e);
	case ExpressionClass::BOUND_OPERATOR:
		switch (e.GetExpressionType()) {
		case ExpressionType::OPERATOR_NOT:
		case ExpressionType::OPERATOR_IS_NULL:
		case ExpressionType::OPERATOR_IS_NOT_NULL:
		case ExpressionType::COMPARE_IN:
		case ExpressionType::COMPARE_NOT_IN:
		case ExpressionType::OPERATOR_COALESCE:
			return ChildrenMayThrow(e);
		default:
			return true;
		}
	default:
		return true; // not an expression the scan evaluates
	}
}

// ---- comparisons DuckDB folds from a calendar field's range ---------------------------------

namespace {

//! The range DuckDB's statistics give a calendar field whatever its input (date_part.cpp,
//! PropagateSimpleDatePartStatistics).
bool FieldRange(const Expression &e, double &lo, double &hi) {
	static const struct {
		const char *name;
		double lo, hi;
	} kRanges[] = {
	    {"month", 1, 12},          {"day", 1, 31},          {"dayofmonth", 1, 31},    {"quarter", 1, 4},
	    {"dayofweek", 0, 6},       {"weekday", 0, 6},       {"isodow", 1, 7},         {"dayofyear", 1, 366},
	    {"week", 1, 54},           {"weekofyear", 1, 54},   {"nanosecond", 0, 6e10},  {"microsecond", 0, 6e7},
	    {"millisecond", 0, 6e4},   {"second", 0, 60},       {"minute", 0, 60},        {"hour", 0, 24},
	    {"era", 0, 1},             {"timezone", 0, 0},      {"timezone_hour", 0, 0},  {"timezone_minute", 0, 0},
	};
	const Expression *f = &e;
	while (f->GetExpressionClass() == ExpressionClass::BOUND_CAST) {
		f = f->Cast<BoundCastExpression>().child.get(); // DuckDB's statistics pass through casts
	}
	if (f->GetExpressionClass() != ExpressionClass::BOUND_FUNCTION) {
		return false;
	}
	for (auto &r : kRanges) {
		if (f->Cast<BoundFunctionExpression>().function.name == r.name) {
			lo = r.lo;
			hi = r.hi;
			return true;
		}
	}
	return false;
}

bool NumericConstant(const Expression &e, double &out) {
	if (e.GetExpressionClass() != ExpressionClass::BOUND_CONSTANT) {
		return false;
	}
	auto v = e.Cast<BoundConstantExpression>().value;
	if (v.IsNull() || !v.type().IsNumeric() || !v.DefaultTryCastAs(LogicalType::DOUBLE)) {
		return false;
	}
	out = v.GetValue<double>();
	return true;
}

//! Whether `field op c` holds for every value of [lo, hi], or for none.
bool Decided(ExpressionType op, double lo, double hi, double c) {
	switch (op) {
	case ExpressionType::COMPARE_LESSTHAN: return hi < c || lo >= c;
	case ExpressionType::COMPARE_LESSTHANOREQUALTO: return hi <= c || lo > c;
	case ExpressionType::COMPARE_GREATERTHAN: return lo > c || hi <= c;
	case ExpressionType::COMPARE_GREATERTHANOREQUALTO: return lo >= c || hi < c;
	default: return c < lo || c > hi || (lo == hi && lo == c); // equality, inequality, DISTINCT FROM
	}
}

} // namespace

bool FoldedByDuckDB(const Expression &e) {
	double lo, hi, c;
	if (e.GetExpressionClass() == ExpressionClass::BOUND_COMPARISON) {
		auto &cmp = e.Cast<BoundComparisonExpression>();
		if (FieldRange(*cmp.left, lo, hi) && NumericConstant(*cmp.right, c)) {
			return Decided(e.GetExpressionType(), lo, hi, c);
		}
		if (FieldRange(*cmp.right, lo, hi) && NumericConstant(*cmp.left, c)) {
			return Decided(FlipComparisonExpression(e.GetExpressionType()), lo, hi, c);
		}
	}
	if (e.GetExpressionClass() == ExpressionClass::BOUND_BETWEEN) {
		auto &b = e.Cast<BoundBetweenExpression>();
		double l, u;
		if (FieldRange(*b.input, lo, hi) && NumericConstant(*b.lower, l) && NumericConstant(*b.upper, u)) {
			return Decided(b.LowerComparisonType(), lo, hi, l) || Decided(b.UpperComparisonType(), lo, hi, u);
		}
	}
	bool any = false;
	ExpressionIterator::EnumerateChildren(e, [&](const Expression &child) { any = any || FoldedByDuckDB(child); });
	return any;
}

// ---- evaluation -----------------------------------------------------------------------------

namespace {

//! The inputs an expression reads (its BoundReferenceExpression indexes).
void InputsOf(const Expression &e, std::vector<idx_t> &out) {
	if (e.GetExpressionClass() == ExpressionClass::BOUND_REF) {
		auto index = e.Cast<BoundReferenceExpression>().index;
		if (std::find(out.begin(), out.end(), index) == out.end()) {
			out.push_back(index);
		}
		return;
	}
	ExpressionIterator::EnumerateChildren(e, [&](const Expression &child) { InputsOf(child, out); });
}

void ReadAsInputZero(unique_ptr<Expression> &e) {
	if (e->GetExpressionClass() == ExpressionClass::BOUND_REF) {
		e->Cast<BoundReferenceExpression>().index = 0;
		return;
	}
	ExpressionIterator::EnumerateChildren(*e, [&](unique_ptr<Expression> &child) { ReadAsInputZero(child); });
}

} // namespace

ExpressionFilterEvaluator::ExpressionFilterEvaluator(ClientContext &context, const std::vector<ExpressionFilter> &filters)
    : context(context), filters(filters) {
	for (auto &f : filters) {
		executors.push_back(make_uniq<ExpressionExecutor>(context, *f.expression));
		bounds_.push_back(f.columns.size() == 1 && !f.has_predicate ? ZoneBounds::Plan(context, *f.expression) : nullptr);
		kernels_.push_back(f.columns.size() == 1 && !f.has_predicate ? KernelFilter::Plan(*f.expression) : nullptr);
		matchers_.push_back(f.columns.size() == 1 && !f.has_predicate ? StringMatchFilter::Plan(*f.expression) : nullptr);
		null_truth_.push_back(-1);
		parts_.emplace_back();
		ors_.push_back(f.expression->GetExpressionType() == ExpressionType::CONJUNCTION_OR);
		if (f.columns.size() < 2 || f.expression->GetExpressionClass() != ExpressionClass::BOUND_CONJUNCTION) {
			continue;
		}
		std::vector<Part> parts;
		for (auto &child : f.expression->Cast<BoundConjunctionExpression>().children) {
			std::vector<idx_t> inputs;
			InputsOf(*child, inputs);
			if (inputs.size() != 1) {
				parts.clear();
				break;
			}
			Part p;
			p.input = inputs[0];
			p.expression = child->Copy();
			ReadAsInputZero(p.expression);
			p.executor = make_uniq<ExpressionExecutor>(context, *p.expression);
			parts.push_back(std::move(p));
		}
		parts_.back() = std::move(parts);
	}
}

idx_t ExpressionFilterEvaluator::Select(idx_t k, DataChunk &chunk, SelectionVector &sel) {
	return executors[k]->SelectExpression(chunk, sel);
}

bool ZoneConstant(const vtx::ZoneStats &stats, const vtx::ColumnType &type, const LogicalType &logical, Value &out) {
	if (stats.rows > 0 && stats.nulls == stats.rows) {
		out = Value(logical);
		return true;
	}
	if (type.IsFloat() || stats.nulls > 0 || !stats.has_minmax || !stats.minmax_exact || stats.min != stats.max) {
		return false;
	}
	out = RawToValue(logical, stats.min);
	return true;
}

vtx::compute::ZoneMatch ExpressionFilterEvaluator::Classify(idx_t k, const ZoneColumns &zone) {
	using vtx::compute::ZoneMatch;
	auto &f = filters[k];
	auto &fields = *zone.fields;
	if (f.has_predicate) {
		auto column = f.columns[0];
		auto match = vtx::compute::ClassifyZone(f.predicate, fields[column].type, zone.zone->chunks[column].stats);
		if (match != ZoneMatch::SOME) {
			return match;
		}
	}
	if (bounds_[k]) {
		auto match = ClassifyByBounds(k, zone);
		if (match != ZoneMatch::SOME) {
			return match;
		}
	}
	std::vector<Value> values;
	for (auto column : f.columns) {
		Value v;
		if (column < fields.size()) {
			if (!ZoneConstant(zone.zone->chunks[column].stats, fields[column].type, (*zone.types)[column], v)) {
				return ZoneMatch::SOME;
			}
		} else {
			v = zone.file_constant(column);
		}
		values.push_back(std::move(v));
	}
	return HoldsOnConstants(k, values) ? ZoneMatch::ALL : ZoneMatch::NONE;
}

vtx::compute::ZoneMatch ExpressionFilterEvaluator::ClassifyByBounds(idx_t k, const ZoneColumns &zone) {
	using vtx::compute::ZoneMatch;
	const auto column = filters[k].columns[0];
	if (column >= zone.fields->size()) {
		return ZoneMatch::SOME;
	}
	auto &stats = zone.zone->chunks[column].stats;
	auto &logical = (*zone.types)[column];
	// Float statistics do not tell 0.0 from -0.0 (nor order NaN as DuckDB does).
	if ((*zone.fields)[column].type.IsFloat() || !stats.has_minmax || !stats.minmax_exact || stats.nulls >= stats.rows) {
		return ZoneMatch::SOME;
	}
	auto match = bounds_[k]->Classify(RawToValue(logical, stats.min), RawToValue(logical, stats.max));
	if (match == ZoneMatch::SOME || stats.nulls == 0) {
		return match;
	}
	if (null_truth_[k] < 0) {
		null_truth_[k] = HoldsOnConstants(k, {Value(logical)}) ? 1 : 0;
	}
	return (match == ZoneMatch::ALL) == (null_truth_[k] == 1) ? match : ZoneMatch::SOME;
}

bool ExpressionFilterEvaluator::HoldsOnConstants(idx_t k, const std::vector<Value> &inputs) {
	vector<LogicalType> types;
	for (auto &v : inputs) {
		types.push_back(v.type());
	}
	DataChunk chunk;
	chunk.Initialize(Allocator::Get(context), types, 1);
	for (idx_t i = 0; i < inputs.size(); i++) {
		chunk.data[i].Reference(inputs[i]);
	}
	chunk.SetCardinality(1);
	SelectionVector sel(1);
	return Select(k, chunk, sel) == 1;
}

vtx::compute::ZoneMatch ExpressionFilterEvaluator::Evaluate(idx_t k, const std::vector<FilterInput> &inputs, uint64_t rows,
                                                            vtx::compute::ZoneMask &mask) {
	using vtx::compute::ZoneMatch;
	// One dictionary-coded string column: the filter is decided once per entry (and once for NULL).
	if (inputs.size() == 1 && inputs[0].decoded && !inputs[0].decoded->codes.empty()) {
		auto &c = *inputs[0].decoded;
		const idx_t d = c.dictionary.size();
		EntryTruth(*executors[k], inputs[0].logical, c);
		// Entries no row uses only make the answer SOME where it could have been ALL or NONE.
		const idx_t entries = c.all_valid ? d : d + 1;
		idx_t held = 0;
		for (idx_t e = 0; e < d; e++) {
			held += truth_[e];
		}
		held += c.all_valid ? 0 : truth_[d];
		if (held == entries) {
			return ZoneMatch::ALL;
		}
		if (held == 0) {
			return ZoneMatch::NONE;
		}
		mask.AndEntries(truth_.data(), c);
		return ZoneMatch::SOME;
	}
	// One column under a predicate the reader evaluates itself (a comparison, IN, IS NULL, their
	// ANDs and ORs): as a table filter is, over the decoded values, not through DuckDB's executor
	// a vector at a time.
	if (filters[k].has_predicate && inputs.size() == 1 && inputs[0].decoded && inputs[0].decoded->count == rows) {
		mask.And(filters[k].predicate, inputs[0].type, *inputs[0].decoded);
		const uint8_t *kept = mask.Rows();
		for (uint64_t r = 0; r < rows; r++) {
			if (kept[r]) {
				return ZoneMatch::SOME;
			}
		}
		return ZoneMatch::NONE;
	}
	if (!parts_[k].empty() && EvaluateParts(k, inputs, rows)) {
		idx_t held = 0;
		for (uint64_t r = 0; r < rows; r++) {
			held += rows_[r];
		}
		return RowsMatch(held, rows, mask);
	}
	if (matchers_[k] && inputs.size() == 1 && inputs[0].decoded && StringMatchFilter::Applies(*inputs[0].decoded, rows)) {
		rows_.resize(rows); // every byte written
		return RowsMatch(matchers_[k]->Evaluate(*inputs[0].decoded, rows, mask.Kept(), rows_.data()), rows, mask);
	}
	if (kernels_[k] && inputs.size() == 1 && inputs[0].decoded && inputs[0].decoded->count == rows) {
		rows_.resize(rows); // every byte written
		if (kernels_[k]->Evaluate(*inputs[0].decoded, rows_.data())) {
			idx_t held = 0;
			for (uint64_t r = 0; r < rows; r++) {
				held += rows_[r];
			}
			return RowsMatch(held, rows, mask);
		}
	}
	vector<LogicalType> types;
	for (auto &in : inputs) {
		types.push_back(in.logical);
	}
	rows_.assign(rows, 0);
	idx_t held = 0;
	DataChunk chunk;
	chunk.Initialize(Allocator::Get(context), types);
	SelectionVector sel(STANDARD_VECTOR_SIZE), kept_rows(STANDARD_VECTOR_SIZE);
	// Only the rows the zone's earlier filters kept are evaluated (the others are out whatever this
	// filter says, and it cannot raise an error): an OR behind a selective range was evaluated on
	// twenty times the rows DuckDB's own FILTER sees (TPC-DS q28).
	const uint8_t *kept = mask.Kept();
	for (uint64_t offset = 0; offset < rows; offset += STANDARD_VECTOR_SIZE) {
		const idx_t n = MinValue<idx_t>(STANDARD_VECTOR_SIZE, rows - offset);
		idx_t m = n;
		if (kept) {
			m = vtx::compute::SelectedRows(kept + offset, static_cast<uint32_t>(n), kept_rows.data());
			if (m == 0) {
				continue;
			}
		}
		chunk.Reset();
		for (idx_t i = 0; i < inputs.size(); i++) {
			auto &in = inputs[i];
			if (in.decoded) {
				// The chunk outlives this call (the caller holds it): no ownership is handed over.
				std::shared_ptr<vtx::DecodedColumn> view(std::shared_ptr<vtx::DecodedColumn>(),
				                                         const_cast<vtx::DecodedColumn *>(in.decoded));
				EmitColumn(*in.decoded, view, offset, n, in.type, chunk.data[i]);
			} else {
				chunk.data[i].Reference(in.constant);
			}
		}
		chunk.SetCardinality(n);
		if (m < n) {
			chunk.Slice(kept_rows, m);
		}
		const idx_t count = Select(k, chunk, sel);
		for (idx_t j = 0; j < count; j++) {
			const idx_t i = sel.get_index(j);
			rows_[offset + (m < n ? kept_rows.get_index(i) : i)] = 1;
		}
		held += count;
	}
	return RowsMatch(held, rows, mask);
}

//! ALL or NONE where rows_ holds on every row or none, else SOME with rows_ ANDed into `mask`.
vtx::compute::ZoneMatch ExpressionFilterEvaluator::RowsMatch(uint64_t held, uint64_t rows, vtx::compute::ZoneMask &mask) {
	if (held == rows) {
		return vtx::compute::ZoneMatch::ALL;
	}
	if (held == 0) {
		return vtx::compute::ZoneMatch::NONE;
	}
	mask.AndRows(rows_.data());
	return vtx::compute::ZoneMatch::SOME;
}

void ExpressionFilterEvaluator::EntryTruth(ExpressionExecutor &executor, const LogicalType &logical,
                                           const vtx::DecodedColumn &c) {
	const idx_t d = c.dictionary.size();
	truth_.assign(d + 1, 0);
	DataChunk chunk;
	chunk.Initialize(Allocator::Get(context), {logical});
	for (idx_t start = 0; start <= d; start += STANDARD_VECTOR_SIZE) {
		const idx_t n = MinValue<idx_t>(STANDARD_VECTOR_SIZE, d + 1 - start);
		chunk.Reset();
		auto &vec = chunk.data[0];
		auto data = FlatVector::GetData<string_t>(vec);
		for (idx_t i = 0; i < n; i++) {
			const idx_t e = start + i;
			if (e == d) {
				FlatVector::SetNull(vec, i, true);
			} else {
				// The entries' bytes outlive the evaluation: referenced where they lie, not copied.
				data[i] = string_t(c.dictionary[e].ptr, static_cast<uint32_t>(c.dictionary[e].len));
			}
		}
		chunk.SetCardinality(n);
		SelectionVector sel(n);
		const idx_t count = executor.SelectExpression(chunk, sel);
		for (idx_t j = 0; j < count; j++) {
			truth_[start + sel.get_index(j)] = 1;
		}
	}
}

// Under WHERE a row passes where the filter is TRUE: an OR is TRUE where some part is TRUE, an
// AND where every part is (a NULL part is not TRUE), so combining the rows each part selects is
// SQL's three-valued OR/AND exactly.
bool ExpressionFilterEvaluator::EvaluateParts(idx_t k, const std::vector<FilterInput> &inputs, uint64_t rows) {
	for (auto &p : parts_[k]) {
		auto *c = inputs[p.input].decoded;
		if (!c || c->codes.size() != rows || c->count != rows) {
			return false;
		}
	}
	const bool any = ors_[k];
	rows_.assign(rows, any ? 0 : 1);
	for (auto &p : parts_[k]) {
		auto &c = *inputs[p.input].decoded;
		EntryTruth(*p.executor, inputs[p.input].logical, c);
		const uint32_t *codes = c.codes.data();
		const uint8_t null_truth = truth_[c.dictionary.size()];
		for (uint64_t r = 0; r < rows; r++) {
			const uint8_t t = c.all_valid || c.IsValid(r) ? truth_[codes[r]] : null_truth;
			rows_[r] = any ? (rows_[r] | t) : (rows_[r] & t);
		}
	}
	return true;
}

} // namespace vortex
