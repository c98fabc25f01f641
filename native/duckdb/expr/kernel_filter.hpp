// Filters that compare a calendar field of one TIMESTAMP or DATE column with constants —
// `hour(ts) BETWEEN 9 AND 17`, `dayofweek(ts) IN (0, 6)`, `month(d) = 2 OR month(d) = 3` —
// evaluated on a zone's rows by native/compute's calendar kernel and an exact predicate on its
// keys (compute/predicate.hpp), not by DuckDB's executor a vector at a time. Only comparisons,
// BETWEEN and IN lists of one field with non-NULL constants, joined by AND and OR, are taken: a
// NULL key fails each of them, as the SQL comparison's NULL fails the filter, and AND and OR of
// such never-NULL-true leaves keep SQL's outcome.
#pragma once
#include "../../compute/calendar.hpp"
#include "../../compute/predicate.hpp"
#include "../../format/column.hpp"
#include "duckdb.hpp"

#include <memory>

namespace vortex {

class KernelFilter {
public:
	//! For a filter reading one column as input 0; null where it has no such form.
	static std::unique_ptr<KernelFilter> Plan(const duckdb::Expression &filter);

	//! One byte per row of `column` (a zone's decoded rows) into `out`, 1 where the filter holds;
	//! false where the kernel does not apply (the rows were not all decoded, or one is infinite,
	//! whose field DuckDB defines).
	bool Evaluate(const vtx::DecodedColumn &column, uint8_t *out);

private:
	KernelFilter(vtx::compute::TimestampKey key, bool of_dates, vtx::compute::Predicate predicate)
	    : keys(key), of_dates(of_dates), predicate(std::move(predicate)) {
	}

	vtx::compute::CalendarKeys keys;
	bool of_dates;
	vtx::compute::Predicate predicate; //! over the keys (BIGINT)
	vtx::DecodedColumn scratch;         //! the zone's keys (all valid: NULL rows are masked after)
};

} // namespace vortex
