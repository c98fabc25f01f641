// The pushdown allow-list as compiled by src/rules.ts and handed over at registration.
// The optimizer consults it for every aggregate; what is absent is never pushed.
#pragma once
#include "../duckdb_compat.hpp"

#include <memory>
#include <string>
#include <vector>

namespace vortex {

struct PushdownRule {
	std::string function;  //! as DuckDB binds it: count_star, count, sum, sum_no_overflow, avg, min, max, fsum, ...
	std::string type_key;  //! the stored column type (TypeKey), "*" for count_star
	std::string setting;   //! the BOOLEAN setting that switches it, e.g. vortex_pushdown_sum
	bool skip_nans = false; //! kernel option: false counts NaN as a value, as DuckDB does
	bool empty_is_null = true; //! result over no values: NULL (sum/avg/min/max) or 0 (count)
	bool non_finite_is_nan = false; //! float sums: NaN where an infinity occurs or the sum overflows (Kahan)
};

struct RulesTable : public duckdb::OptimizerExtensionInfo {
	std::vector<PushdownRule> rules;
	//! Lists of the database's configuration that registration replaced while other connections
	//! may still have been reading them; kept as long as the database (see RegisterVortex).
	std::vector<std::shared_ptr<void>> retired;

	const PushdownRule *Find(const std::string &function, const std::string &type_key) const;
	//! Same set of rules (order and repetitions aside), every field equal.
	bool SameRules(const RulesTable &other) const;
	//! Human-readable difference, e.g. "2 rules only here: max(INTEGER), max(BIGINT); 1 only there: ...".
	std::string DescribeDifference(const RulesTable &other, const char *here, const char *there) const;
};

//! The key under which rules name a column type: DuckDB's type name, with DECIMAL split by
//! storage width into "DECIMAL(<=18)" and "DECIMAL(>18)".
std::string TypeKey(const duckdb::LogicalType &type);

} // namespace vortex
