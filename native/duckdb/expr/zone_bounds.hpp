// Filters over one column decided on a zone from the column's min and max, where the column is
// read through functions that zone statistics can bound: `year(ts) = 2024`, `v // 1000 = 5000`,
// `year(ts) = 2024 AND month(ts) = 3`, `year(d) IN (2023, 2025)`, `hour(ts) = 3`.
//
// A monotone function (monotone_functions.hpp) maps a zone's values into [f(min), f(max)], so a
// comparison of it with a constant holds on every row or on none wherever the constant lies
// outside that range or the range is one value. A calendar field that is not monotone (`month`,
// `hour`, `dayofweek`) is one value across the zone wherever the zone's min and max truncate to
// the same unit that determines it (`date_trunc('month', …)` for `month`). The values at the ends
// are computed by DuckDB's own ExpressionExecutor, so types and calendars are DuckDB's.
#pragma once
#include "../../compute/predicate.hpp"
#include "duckdb.hpp"
#include "value_evaluator.hpp"

#include <memory>
#include <vector>

namespace vortex {

class ZoneBounds {
public:
	//! For a filter reading one column as input 0; null where no part of it can be decided so.
	static std::unique_ptr<ZoneBounds> Plan(duckdb::ClientContext &context, const duckdb::Expression &filter);

	//! The filter over the non-NULL rows of a zone whose values lie in [min, max]: ALL where it is
	//! TRUE on every such row, NONE where it is FALSE on every one, else SOME. (NULL rows are the
	//! caller's: the filter is evaluated once on NULL.)
	vtx::compute::ZoneMatch Classify(const duckdb::Value &min, const duckdb::Value &max);

private:
	//! A function of the column: monotone (a zone's values map into [at min, at max]), or a
	//! calendar field, one value across a zone where `truncation` is one value at both ends, and
	//! monotone where `parent` is.
	struct Term {
		duckdb::unique_ptr<duckdb::Expression> expression;
		duckdb::unique_ptr<duckdb::Expression> truncation, parent; //! null for a monotone term
		std::unique_ptr<ValueEvaluator> value, truncation_value, parent_value;
	};
	//! A boolean over terms: comparisons and IN lists of a term with constants, joined by AND, OR
	//! and NOT; anything else is UNKNOWN (SOME on every zone).
	struct Node {
		enum class Kind : uint8_t { UNKNOWN, AND, OR, NOT, COMPARE, IN };
		Kind kind = Kind::UNKNOWN;
		std::vector<Node> children;
		duckdb::ExpressionType op = duckdb::ExpressionType::INVALID; //! COMPARE: term op constants[0]
		size_t term = 0;
		std::vector<duckdb::Value> constants;
	};

	explicit ZoneBounds(duckdb::ClientContext &context) : context(context) {
	}
	Node Build(const duckdb::Expression &e);
	//! The index of `e` as a term, or -1 where it is none.
	int TermOf(const duckdb::Expression &e);
	//! Whether `f` gives one value at the zone's min and at its max.
	bool Same(ValueEvaluator &f);
	//! The range of term t over [min, max]; false where unknown.
	bool Range(size_t t, duckdb::Value &lo, duckdb::Value &hi);
	bool TermRange(size_t t, duckdb::Value &lo, duckdb::Value &hi);
	vtx::compute::ZoneMatch Decide(const Node &node);
	//! `f` at `input`, where it is a value (not an error, not NULL).
	static bool Known(ValueEvaluator &f, const duckdb::Value &input, duckdb::Value &out);

	duckdb::ClientContext &context;
	duckdb::LogicalType input_type_; //! the column's
	std::vector<Term> terms_;
	Node root_;
	duckdb::Value min_, max_; //! the zone being classified
	struct KnownRange {
		int8_t state = -1; //! not computed yet; 0 unknown; 1 [lo, hi]
		duckdb::Value lo, hi;
	};
	std::vector<KnownRange> ranges_; //! per term, for the zone being classified
};

} // namespace vortex
