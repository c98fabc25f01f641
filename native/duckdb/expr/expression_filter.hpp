// Filters vortex_scan takes out of DuckDB's plan (pushdown_complex_filter): expressions DuckDB
// would otherwise keep in a FILTER above the scan (`s LIKE '%x%'`, `g = 1 OR g = 2`, IN lists,
// `lower(s) = 'k'`, ORs across columns). Only deterministic expressions that cannot raise an
// error and read nothing but the scan's own columns are taken: the scan then evaluates them with
// DuckDB's own ExpressionExecutor, so their semantics are DuckDB's by construction, and may
// evaluate them on fewer rows than DuckDB would (a zone proven empty is not read).
//
// Zones are classified without reading rows where that is exact: by an equivalent predicate on
// one column (IN lists, comparisons joined by OR) against the zone statistics; by evaluating the
// expression once where every column it reads is one value in the zone (a constant chunk, a
// partition key, the file name); from one column's min and max where it compares monotone
// functions or calendar fields of it with constants (`year(ts) = 2024`, zone_bounds.hpp); and,
// once read, by evaluating it once per dictionary entry of a dictionary-coded string column, or,
// where it compares a calendar field of a TIMESTAMP or DATE with constants, by native/compute's
// calendar kernel (kernel_filter.hpp).
#pragma once
#include "../../compute/predicate.hpp"
#include "../../compute/zone_mask.hpp"
#include "../../format/bytes.hpp"
#include "../../format/file/metadata.hpp"
#include "kernel_filter.hpp"
#include "string_match_filter.hpp"
#include "zone_bounds.hpp"
#include "duckdb.hpp"
#include "duckdb/common/serializer/deserializer.hpp"
#include "duckdb/common/serializer/serializer.hpp"
#include "duckdb/execution/expression_executor.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace vortex {

struct ExpressionFilter {
	//! Over its inputs: BoundReferenceExpression(i) stands for `columns[i]`.
	duckdb::unique_ptr<duckdb::Expression> expression;
	//! The scan columns it reads (file columns, partition keys, the file name), by column id.
	std::vector<duckdb::idx_t> columns;
	std::string display; //! as the query wrote it, for EXPLAIN
	//! The same filter as an exact predicate on `columns[0]` (a file column), where it has that
	//! form: zone statistics then classify zones by it.
	bool has_predicate = false;
	vtx::compute::Predicate predicate;

	ExpressionFilter() = default;
	//! Copies are deep (bind data is copied, and each copy owns its expression).
	ExpressionFilter(const ExpressionFilter &o);
	ExpressionFilter &operator=(const ExpressionFilter &o);
	ExpressionFilter(ExpressionFilter &&) = default;
	ExpressionFilter &operator=(ExpressionFilter &&) = default;
	bool Equals(const ExpressionFilter &o) const;
};

bool SameFilters(const std::vector<ExpressionFilter> &a, const std::vector<ExpressionFilter> &b);
void SerializeExpressionFilters(duckdb::Serializer &s, duckdb::field_id_t id, const std::vector<ExpressionFilter> &filters);
std::vector<ExpressionFilter> DeserializeExpressionFilters(duckdb::Deserializer &d, duckdb::field_id_t id);
//! One line per filter, for EXPLAIN's "Filters".
std::string FiltersDisplay(const std::vector<ExpressionFilter> &filters);

//! Whether `expression` may raise an error for some input: DuckDB's own knowledge (a function's
//! declared error mode), made stricter where DuckDB under-reports (casts that narrow within one
//! type id, substring offsets out of range) and kinder where a constant proves it safe (integer
//! division and modulo by a constant other than 0 and -1).
bool MayThrow(const duckdb::Expression &expression);

//! Whether `expression` compares a calendar field with a constant its fixed range decides
//! (`month(ts) >= 1`, `hour(ts) < 24`). DuckDB's statistics give such fields their range and the
//! validity of their input, though an infinite input gives NULL, so DuckDB folds the comparison
//! to a constant and answers it for every row, infinities included. Left to DuckDB, the answer
//! stays DuckDB's.
bool FoldedByDuckDB(const duckdb::Expression &expression);

//! One input of a filter over one zone: a decoded file column, or one value for the whole zone
//! (a constant chunk, a partition key, the file name).
struct FilterInput {
	const vtx::DecodedColumn *decoded = nullptr; //! the zone's rows, or null for `constant`
	vtx::ColumnType type;                         //! of `decoded`
	duckdb::LogicalType logical;                  //! as DuckDB sees the column
	duckdb::Value constant;
};

//! What a reader knows of the columns of one zone without reading rows: the file columns'
//! statistics, and the columns that are one value for a whole file (partition keys, file name).
struct ZoneColumns {
	const vtx::ZoneMeta *zone = nullptr;
	const std::vector<vtx::Field> *fields = nullptr;
	const duckdb::vector<duckdb::LogicalType> *types = nullptr; //! DuckDB's type per field
	//! The file's value of a column that is not a file column.
	std::function<duckdb::Value(duckdb::idx_t column)> file_constant;
};

//! A file column's one value over a zone, where its statistics prove every row holds it (or
//! every row is NULL); never for floats, whose statistics do not tell 0.0 from -0.0.
bool ZoneConstant(const vtx::ZoneStats &stats, const vtx::ColumnType &type, const duckdb::LogicalType &logical,
                  duckdb::Value &out);

//! Evaluates expression filters for one thread (DuckDB's executor keeps per-call state).
class ExpressionFilterEvaluator {
public:
	ExpressionFilterEvaluator(duckdb::ClientContext &context, const std::vector<ExpressionFilter> &filters);

	//! Filter `k` on a zone from what is known without reading its rows: ALL or NONE where its
	//! predicate or its bounds decide it from the statistics, or where every input is one value;
	//! else SOME.
	vtx::compute::ZoneMatch Classify(duckdb::idx_t k, const ZoneColumns &zone);

	//! Filter `k` where every input is one value: whether it holds.
	bool HoldsOnConstants(duckdb::idx_t k, const std::vector<duckdb::Value> &inputs);
	//! Filter `k` on a zone of `rows` rows: ALL or NONE where it holds on every row or on none
	//! (decided once per dictionary entry where it reads one dictionary-coded column); SOME
	//! otherwise, with the rows where it holds ANDed into `mask`.
	vtx::compute::ZoneMatch Evaluate(duckdb::idx_t k, const std::vector<FilterInput> &inputs, uint64_t rows,
	                                 vtx::compute::ZoneMask &mask);

private:
	//! A child of a filter that is an OR or AND, reading one of the filter's inputs (`input`),
	//! rewritten to read it as input 0.
	struct Part {
		duckdb::unique_ptr<duckdb::Expression> expression;
		std::unique_ptr<duckdb::ExpressionExecutor> executor;
		duckdb::idx_t input = 0;
	};

	//! Selects the rows of `chunk` where filter k holds; true where it holds on every row.
	duckdb::idx_t Select(duckdb::idx_t k, duckdb::DataChunk &chunk, duckdb::SelectionVector &sel);
	//! truth_[e]: whether `executor`'s expression holds on dictionary entry e of `chunk` (and, at
	//! e = the dictionary's size, on NULL).
	void EntryTruth(duckdb::ExpressionExecutor &executor, const duckdb::LogicalType &logical, const vtx::DecodedColumn &chunk);
	//! Filter k from its parts, each decided per dictionary entry of its column, into rows_;
	//! false where some part's column is not dictionary-coded over the zone's rows.
	bool EvaluateParts(duckdb::idx_t k, const std::vector<FilterInput> &inputs, uint64_t rows);
	vtx::compute::ZoneMatch RowsMatch(uint64_t held, uint64_t rows, vtx::compute::ZoneMask &mask);
	//! Filter k, which reads one file column, from that column's min and max in the zone.
	vtx::compute::ZoneMatch ClassifyByBounds(duckdb::idx_t k, const ZoneColumns &zone);

	duckdb::ClientContext &context;
	const std::vector<ExpressionFilter> &filters;
	std::vector<std::unique_ptr<duckdb::ExpressionExecutor>> executors;
	//! Per filter: its parts where it is an OR or AND of children that read one column each
	//! (`region IN (...) OR status = 'ok'`), else none.
	std::vector<std::vector<Part>> parts_;
	std::vector<bool> ors_;
	//! Per filter over one column without an equivalent predicate: its bounds, where it has any.
	std::vector<std::unique_ptr<ZoneBounds>> bounds_;
	//! Per filter: whether it holds where its one column is NULL (-1 until asked).
	//! Per filter: where it compares a calendar field of its one column with constants, its
	//! evaluation by native/compute's kernel (kernel_filter.hpp), else null.
	std::vector<std::unique_ptr<KernelFilter>> kernels_;
	//! Per filter: where it matches its one VARCHAR column against a constant pattern, its
	//! evaluation by native/compute's matcher (string_match_filter.hpp), else null.
	std::vector<std::unique_ptr<StringMatchFilter>> matchers_;
	std::vector<int8_t> null_truth_;
	std::vector<uint8_t> rows_;
	std::vector<uint8_t> truth_;
};

} // namespace vortex
