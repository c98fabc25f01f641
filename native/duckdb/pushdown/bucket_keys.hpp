// GROUP BY keys that are bucket functions of one column (src/rules.ts, bucketFunctions):
// `date_trunc('hour', ts)`, `time_bucket(INTERVAL '15 minutes', ts)`, `ts::DATE`, `year(ts)`,
// `id // 1000`, and calendar fields (`hour(ts)`, `dayofweek(ts)`, `month(d)`). The grouped scan
// evaluates the function itself with DuckDB's ExpressionExecutor on the column's values (so the
// key's type and value are DuckDB's by construction), or, for a TIMESTAMP's truncations to a fixed
// unit, its day, and the calendar fields of a TIMESTAMP or DATE, with native/compute's kernel
// (compute/calendar.hpp, differential-tested against DuckDB), and groups on the results; where
// the column takes few values in a zone (the days of a few years), once per value instead of per
// row (vtx::compute::KeyFunction, grouped_aggregate.cpp's KeyPerValue). The
// bucket functions are monotone (non-decreasing) in their input, so a zone whose min and max give
// the same key has that one key on every row and is answered from its statistics (a calendar
// field: where min and max lie in one unit of it, e.g. one hour for `hour`); where a function
// depends on the TimeZone setting (TIMESTAMP WITH TIME ZONE), local time can run backwards at a
// transition, so that shortcut is taken only while TimeZone is UTC.
#pragma once
#include <string>
#include <vector>
#include "../../compute/calendar.hpp"
#include "../../format/column.hpp"
#include "../expr/monotone_functions.hpp"
#include "../expr/value_evaluator.hpp"
#include "duckdb.hpp"
#include "duckdb/execution/expression_executor.hpp"

namespace vortex {

//! The bucket function over input column 0 (`input`, the expression BucketFunction found, replaced).
duckdb::unique_ptr<duckdb::Expression> BucketOverInput(const duckdb::Expression &key, const duckdb::Expression &input);

//! The least distance between two different results of the bucket function, in the units of
//! its result type's storage (days for DATE, microseconds for TIMESTAMP, 1 for integers): the
//! number of buckets between two results is at most their distance over it, plus one.
int64_t BucketGranularity(const duckdb::Expression &bucket);

//! Evaluates one bucket function for one thread.
class BucketEvaluator {
public:
	//! `monotone`: the function never decreases (or never increases) in its input, as BucketFunction says.
	BucketEvaluator(duckdb::ClientContext &context, const duckdb::Expression &bucket, vtx::ColumnType input_type,
	                bool monotone = false);

	//! The key of one value (NULL in, the function's result for NULL out); false where DuckDB
	//! raises an error on it (ValueEvaluator: a zone's end may be a row a filter removes).
	bool Apply(const duckdb::Value &input, duckdb::Value &out);
	//! Whether every value in [min, max] has one key: the function is monotone and gives min and
	//! max one key, or it is a calendar field and min and max lie in one of its units.
	bool OneKey(const duckdb::Value &min, const duckdb::Value &max);
	bool CalendarField() const {
		return truncation != nullptr;
	}
	//! A calendar field's truncation of one value (NULL where it is NULL, fails, or the function is
	//! no calendar field), and that truncation's expression (null for other functions).
	duckdb::Value Truncate(const duckdb::Value &input);
	const duckdb::Expression *Truncation() const {
		return truncation.get();
	}
	//! Where rows are keyed by a kernel of native/compute, not DuckDB's executor (cheap row by row).
	bool HasKernel() const {
		return kernel != nullptr;
	}
	//! How many keys the function gives at most (a field's 24 hours), or 0 where unbounded.
	uint64_t KeyValues() const {
		return kernel ? vtx::compute::TimestampKeyValues(kernel->Key()) : 0;
	}

	//! The key of every row of `in` (decoded whole), into `out` as a fixed-width column of the
	//! bucket's result type in the format's storage. With `selected`, only rows whose byte is
	//! nonzero are evaluated (the others come out NULL): DuckDB groups only the rows that pass.
	void ApplyColumn(const vtx::DecodedColumn &in, vtx::DecodedColumn &out, const uint8_t *selected = nullptr);
	//! Where the function is monotone (or a calendar field, whose truncation is) and rows
	//! [begin, end) of `in` are NULL-free and ascending, so that each key covers consecutive rows
	//! of each unit: the keys as runs, run r from row starts[r] to the
	//! next run's start (the last to `end`) with key bytes keys[r] (the format's storage of the
	//! bucket's result type). Only rows in the range are evaluated. False where that does not
	//! hold, where a key is NULL, or where runs would be shorter than `min_average_run` rows on
	//! average.
	bool SortedKeyRuns(const vtx::DecodedColumn &in, uint64_t begin, uint64_t end, uint64_t min_average_run,
	                   std::vector<uint64_t> &starts, std::vector<std::string> &keys);

private:
	duckdb::ClientContext &context;
	const duckdb::Expression &bucket;
	vtx::ColumnType input_type;
	duckdb::LogicalType input_logical;
	duckdb::ExpressionExecutor executor; //! over vectors of the input
	ValueEvaluator ends;                 //! over single values (a zone's min and max)
	bool monotone;
	//! A calendar field's date_trunc unit over the input.
	duckdb::unique_ptr<duckdb::Expression> truncation;
	std::unique_ptr<duckdb::ExpressionExecutor> truncation_executor;
	std::unique_ptr<ValueEvaluator> truncation_ends;
	//! Where the function has a kernel in native/compute (a TIMESTAMP's day, hour, weekday, …):
	//! rows keyed without DuckDB's executor.
	std::unique_ptr<vtx::compute::CalendarKeys> kernel;
	bool kernel_of_dates = false; //! the input is a DATE (days), not a TIMESTAMP

	//! Rows [offset, offset + n) of `in` keyed by the kernel into `out`; false where it does not
	//! apply (an infinity among them).
	bool KernelKeys(const vtx::DecodedColumn &in, uint64_t offset, uint64_t n, const uint8_t *selected,
	                vtx::DecodedColumn &out);
	//! `e` (run by `over`) on rows `rows` of `in` (an integer-stored column), into `out` in the
	//! storage of `e`'s type; false if any is NULL.
	bool EvaluateRows(duckdb::ExpressionExecutor &over, const duckdb::Expression &e, const vtx::DecodedColumn &in,
	                  const std::vector<uint64_t> &rows, std::vector<uint8_t> &out);
};

} // namespace vortex
