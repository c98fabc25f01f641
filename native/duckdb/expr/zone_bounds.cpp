#include "zone_bounds.hpp"

#include "monotone_functions.hpp"
#include "duckdb/planner/expression/bound_between_expression.hpp"
#include "duckdb/planner/expression/bound_comparison_expression.hpp"
#include "duckdb/planner/expression/bound_conjunction_expression.hpp"
#include "duckdb/planner/expression/bound_constant_expression.hpp"
#include "duckdb/planner/expression/bound_function_expression.hpp"
#include "duckdb/planner/expression/bound_operator_expression.hpp"
#include "duckdb/planner/expression_iterator.hpp"

namespace vortex {

using namespace duckdb;
using vtx::compute::ZoneMatch;

namespace {

//! The column itself, or monotone functions of it, one inside the other.
bool MonotoneChain(ClientContext &context, const Expression &e) {
	if (e.GetExpressionClass() == ExpressionClass::BOUND_REF) {
		return true; // the filter reads one column: every reference is to it
	}
	const Expression *input = nullptr;
	bool monotone = false;
	return BucketFunction(context, e, input, monotone) && monotone && MonotoneChain(context, *input);
}

bool NonNullConstant(const Expression &e) {
	return e.GetExpressionClass() == ExpressionClass::BOUND_CONSTANT && !e.Cast<BoundConstantExpression>().value.IsNull();
}

//! `term op c` over a zone where the term's values lie in [lo, hi] (none NULL).
ZoneMatch CompareRange(const Value &lo, const Value &hi, ExpressionType op, const Value &c) {
	switch (op) {
	case ExpressionType::COMPARE_EQUAL:
	case ExpressionType::COMPARE_NOT_DISTINCT_FROM:
		if (hi < c || c < lo) {
			return ZoneMatch::NONE;
		}
		return lo == c && hi == c ? ZoneMatch::ALL : ZoneMatch::SOME;
	case ExpressionType::COMPARE_NOTEQUAL:
	case ExpressionType::COMPARE_DISTINCT_FROM:
		return vtx::compute::Not(CompareRange(lo, hi, ExpressionType::COMPARE_EQUAL, c));
	case ExpressionType::COMPARE_LESSTHAN:
		return hi < c ? ZoneMatch::ALL : lo >= c ? ZoneMatch::NONE : ZoneMatch::SOME;
	case ExpressionType::COMPARE_LESSTHANOREQUALTO:
		return hi <= c ? ZoneMatch::ALL : lo > c ? ZoneMatch::NONE : ZoneMatch::SOME;
	case ExpressionType::COMPARE_GREATERTHAN:
		return lo > c ? ZoneMatch::ALL : hi <= c ? ZoneMatch::NONE : ZoneMatch::SOME;
	case ExpressionType::COMPARE_GREATERTHANOREQUALTO:
		return lo >= c ? ZoneMatch::ALL : hi < c ? ZoneMatch::NONE : ZoneMatch::SOME;
	default:
		return ZoneMatch::SOME;
	}
}

//! The type of the column the filter reads (as input 0), or INVALID where it reads none.
LogicalType InputType(const Expression &e) {
	if (e.GetExpressionClass() == ExpressionClass::BOUND_REF) {
		return e.return_type;
	}
	LogicalType found(LogicalTypeId::INVALID);
	ExpressionIterator::EnumerateChildren(e, [&](const Expression &child) {
		if (found.id() == LogicalTypeId::INVALID) {
			found = InputType(child);
		}
	});
	return found;
}

} // namespace

int ZoneBounds::TermOf(const Expression &e) {
	Term t;
	if (MonotoneChain(context, e)) {
		t.expression = e.Copy();
	} else {
		const Expression *input = nullptr;
		auto field = CalendarFieldOf(e, input);
		if (!field || !MonotoneChain(context, *input)) {
			return -1;
		}
		t.truncation = TruncationOf(context, field->unit, input->Copy());
		if (!t.truncation) {
			return -1;
		}
		if (field->parent) {
			t.parent = TruncationOf(context, field->parent, input->Copy());
		}
		t.expression = e.Copy();
		t.truncation_value = make_uniq<ValueEvaluator>(context, *t.truncation, input_type_);
		if (t.parent) {
			t.parent_value = make_uniq<ValueEvaluator>(context, *t.parent, input_type_);
		}
	}
	t.value = make_uniq<ValueEvaluator>(context, *t.expression, input_type_);
	terms_.push_back(std::move(t));
	return int(terms_.size() - 1);
}

ZoneBounds::Node ZoneBounds::Build(const Expression &e) {
	Node node;
	switch (e.GetExpressionClass()) {
	case ExpressionClass::BOUND_CONJUNCTION: {
		node.kind = e.GetExpressionType() == ExpressionType::CONJUNCTION_AND ? Node::Kind::AND : Node::Kind::OR;
		for (auto &child : e.Cast<BoundConjunctionExpression>().children) {
			node.children.push_back(Build(*child));
		}
		return node;
	}
	case ExpressionClass::BOUND_COMPARISON: {
		auto &cmp = e.Cast<BoundComparisonExpression>();
		const bool constant_right = NonNullConstant(*cmp.right);
		auto &term = constant_right ? *cmp.left : *cmp.right;
		auto &constant = constant_right ? *cmp.right : *cmp.left;
		if (!NonNullConstant(constant) || constant.return_type != term.return_type) {
			return node;
		}
		const int t = TermOf(term);
		if (t < 0) {
			return node;
		}
		node.kind = Node::Kind::COMPARE;
		node.term = size_t(t);
		node.op = constant_right ? e.GetExpressionType() : FlipComparisonExpression(e.GetExpressionType());
		node.constants.push_back(constant.Cast<BoundConstantExpression>().value);
		return node;
	}
	case ExpressionClass::BOUND_BETWEEN: {
		auto &between = e.Cast<BoundBetweenExpression>();
		auto &type = between.input->return_type;
		if (!NonNullConstant(*between.lower) || !NonNullConstant(*between.upper) ||
		    between.lower->return_type != type || between.upper->return_type != type) {
			return node;
		}
		const int t = TermOf(*between.input);
		if (t < 0) {
			return node;
		}
		node.kind = Node::Kind::AND;
		Node lower, upper;
		lower.kind = upper.kind = Node::Kind::COMPARE;
		lower.term = upper.term = size_t(t);
		lower.op = between.lower_inclusive ? ExpressionType::COMPARE_GREATERTHANOREQUALTO : ExpressionType::COMPARE_GREATERTHAN;
		upper.op = between.upper_inclusive ? ExpressionType::COMPARE_LESSTHANOREQUALTO : ExpressionType::COMPARE_LESSTHAN;
		lower.constants.push_back(between.lower->Cast<BoundConstantExpression>().value);
		upper.constants.push_back(between.upper->Cast<BoundConstantExpression>().value);
		node.children.push_back(std::move(lower));
		node.children.push_back(std::move(upper));
		return node;
	}
	case ExpressionClass::BOUND_OPERATOR: {
		auto &op = e.Cast<BoundOperatorExpression>();
		const auto type = e.GetExpressionType();
		if (type == ExpressionType::OPERATOR_NOT && op.children.size() == 1) {
			node.kind = Node::Kind::NOT;
			node.children.push_back(Build(*op.children[0]));
			return node;
		}
		if ((type != ExpressionType::COMPARE_IN && type != ExpressionType::COMPARE_NOT_IN) || op.children.size() < 2) {
			return node;
		}
		// A NULL in the list makes the IN NULL, not FALSE, where nothing else matches: left to rows.
		Node in;
		for (idx_t i = 1; i < op.children.size(); i++) {
			if (!NonNullConstant(*op.children[i]) || op.children[i]->return_type != op.children[0]->return_type) {
				return node;
			}
			in.constants.push_back(op.children[i]->Cast<BoundConstantExpression>().value);
		}
		const int t = TermOf(*op.children[0]);
		if (t < 0) {
			return node;
		}
		in.kind = Node::Kind::IN;
		in.term = size_t(t);
		if (type == ExpressionType::COMPARE_IN) {
			return in;
		}
		node.kind = Node::Kind::NOT;
		node.children.push_back(std::move(in));
		return node;
	}
	default:
		return node;
	}
}

std::unique_ptr<ZoneBounds> ZoneBounds::Plan(ClientContext &context, const Expression &filter) {
	std::unique_ptr<ZoneBounds> bounds(new ZoneBounds(context));
	bounds->input_type_ = InputType(filter);
	if (bounds->input_type_.id() == LogicalTypeId::INVALID) {
		return nullptr;
	}
	bounds->root_ = bounds->Build(filter);
	if (bounds->terms_.empty()) {
		return nullptr;
	}
	return bounds;
}

bool ZoneBounds::Known(ValueEvaluator &f, const Value &input, Value &out) {
	return f.At(input, out) && !out.IsNull();
}

bool ZoneBounds::Same(ValueEvaluator &f) {
	Value a, b;
	return Known(f, min_, a) && Known(f, max_, b) && a == b;
}

bool ZoneBounds::Range(size_t index, Value &lo, Value &hi) {
	// A term may be compared more than once (BETWEEN, ranges ANDed): its ends are computed once a zone.
	auto &known = ranges_[index];
	if (known.state < 0) {
		known.state = TermRange(index, known.lo, known.hi) ? 1 : 0;
	}
	lo = known.lo;
	hi = known.hi;
	return known.state == 1;
}

bool ZoneBounds::TermRange(size_t index, Value &lo, Value &hi) {
	auto &t = terms_[index];
	if (t.truncation && Same(*t.truncation_value)) {
		if (!Known(*t.value, min_, lo)) {
			return false;
		}
		hi = lo;
		return true;
	}
	if (t.truncation && !(t.parent && Same(*t.parent_value))) {
		return false;
	}
	// Monotone over the zone, or within the one parent unit it spans. Only infinities map to NULL
	// (year('infinity')), and they are a column's extremes: where both ends map to values, every
	// value between does.
	return Known(*t.value, min_, lo) && Known(*t.value, max_, hi) && lo <= hi;
}

ZoneMatch ZoneBounds::Decide(const Node &node) {
	switch (node.kind) {
	case Node::Kind::AND:
	case Node::Kind::OR: {
		// An AND starts at ALL and is decided by a NONE; an OR the other way round.
		const bool all = node.kind == Node::Kind::AND;
		const auto decisive = all ? ZoneMatch::NONE : ZoneMatch::ALL;
		auto m = all ? ZoneMatch::ALL : ZoneMatch::NONE;
		for (size_t i = 0; i < node.children.size() && m != decisive; i++) {
			const auto c = Decide(node.children[i]);
			m = all ? vtx::compute::And(m, c) : vtx::compute::Or(m, c);
		}
		return m;
	}
	case Node::Kind::NOT:
		return vtx::compute::Not(Decide(node.children[0]));
	case Node::Kind::COMPARE:
	case Node::Kind::IN: {
		Value lo, hi;
		if (!Range(node.term, lo, hi)) {
			return ZoneMatch::SOME;
		}
		if (node.kind == Node::Kind::COMPARE) {
			return CompareRange(lo, hi, node.op, node.constants[0]);
		}
		auto m = ZoneMatch::NONE;
		for (auto &c : node.constants) {
			m = vtx::compute::Or(m, CompareRange(lo, hi, ExpressionType::COMPARE_EQUAL, c));
		}
		return m;
	}
	default:
		return ZoneMatch::SOME;
	}
}

ZoneMatch ZoneBounds::Classify(const Value &min, const Value &max) {
	min_ = min;
	max_ = max;
	ranges_.assign(terms_.size(), KnownRange());
	return Decide(root_);
}

} // namespace vortex
