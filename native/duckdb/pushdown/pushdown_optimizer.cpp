#include "pushdown_optimizer.hpp"

#include "../../compute/aggregate_state.hpp"
#include "../../compute/grouped_aggregation.hpp"
#include "../sketches.hpp"
#include "bucket_keys.hpp"
#include "compressed_materialization.hpp"
#include "exact_float_sums.hpp"
#include "duckdb_semantics.hpp"
#include "grouped_aggregate.hpp"
#include "pushed_aggregate.hpp"
#include "sorted_grouped_scan.hpp"
#include "plan.hpp"
#include "duckdb/planner/filter/conjunction_filter.hpp"
#include "duckdb/planner/filter/struct_filter.hpp"
#include "duckdb/common/multi_file/multi_file_reader.hpp"
#include "../settings.hpp"
#include "../type_mapping.hpp"
#include "duckdb/common/types/decimal.hpp"
#include "duckdb/optimizer/column_binding_replacer.hpp"
#include "duckdb/planner/binder.hpp"
#include "duckdb/planner/operator/logical_cross_product.hpp"
#include "duckdb/optimizer/optimizer_extension.hpp"
#include "duckdb/storage/buffer_manager.hpp"
#include "duckdb/planner/expression/bound_aggregate_expression.hpp"
#include "duckdb/planner/expression/bound_cast_expression.hpp"
#include "duckdb/planner/expression/bound_columnref_expression.hpp"
#include "duckdb/planner/expression/bound_constant_expression.hpp"
#include "duckdb/planner/expression/bound_function_expression.hpp"
#include "duckdb/planner/expression/bound_reference_expression.hpp"
#include "duckdb/planner/operator/logical_aggregate.hpp"
#include "duckdb/planner/operator/logical_filter.hpp"
#include "duckdb/planner/expression/bound_operator_expression.hpp"
#include "duckdb/planner/operator/logical_get.hpp"
#include "duckdb/planner/operator/logical_projection.hpp"

#include <functional>
#include <limits>
#include <set>

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

//! The child index a `struct_extract(s, 'a')`, `s['a']`, `struct_extract_at(s, 1)` or `r[1]` selects, from its
//! constant argument; false for anything else.
bool StructFieldIndex(const Expression &e, size_t &index) {
	if (e.GetExpressionClass() != ExpressionClass::BOUND_FUNCTION) {
		return false;
	}
	auto &fn = e.Cast<BoundFunctionExpression>();
	// s.a and struct_extract(s, 'a') bind to struct_extract, s['a'] to array_extract.
	const bool by_name = fn.function.name == "struct_extract" || fn.function.name == "array_extract";
	const bool by_index = fn.function.name == "struct_extract_at";
	if ((!by_name && !by_index) || fn.children.size() != 2 ||
	    fn.children[0]->return_type.id() != LogicalTypeId::STRUCT ||
	    fn.children[1]->GetExpressionClass() != ExpressionClass::BOUND_CONSTANT) {
		return false;
	}
	auto &value = fn.children[1]->Cast<BoundConstantExpression>().value;
	if (value.IsNull()) {
		return false;
	}
	auto &children = StructType::GetChildTypes(fn.children[0]->return_type);
	// r[1] on an unnamed STRUCT (row(...)) binds to array_extract with the field's position.
	if (by_index || (fn.function.name == "array_extract" && value.type().IsIntegral())) {
		auto i = value.DefaultCastAs(LogicalType::BIGINT).GetValue<int64_t>();
		if (i < 1 || static_cast<idx_t>(i) > children.size()) {
			return false;
		}
		index = static_cast<size_t>(i - 1);
		return fn.return_type == children[index].second;
	}
	if (value.type().id() != LogicalTypeId::VARCHAR) {
		return false;
	}
	auto name = StringValue::Get(value);
	for (size_t i = 0; i < children.size(); i++) {
		if (StringUtil::CIEquals(children[i].first, name)) {
			index = i;
			return fn.return_type == children[i].second;
		}
	}
	return false;
}

//! Follows an aggregate argument down to a scan column through projections of plain
//! column references and lossless casts, and with `route`, through the fields of structs
//! (`route` then lists the child indexes from the column down).
bool ResolveColumn(const Chain &chain, const Expression &expr, idx_t &field, std::vector<size_t> *route = nullptr) {
	const Expression *e = &expr;
	std::vector<size_t> reversed;
	while (true) {
		if (e->GetExpressionClass() == ExpressionClass::BOUND_CAST) {
			auto &cast = e->Cast<BoundCastExpression>();
			if (!LosslessCast(cast) || !reversed.empty()) {
				return false;
			}
			e = cast.child.get();
			continue;
		}
		size_t index;
		if (route && StructFieldIndex(*e, index)) {
			reversed.push_back(index);
			e = e->Cast<BoundFunctionExpression>().children[0].get();
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
		if (route) {
			route->assign(reversed.rbegin(), reversed.rend());
		}
		return field < chain.scan->fields.size() && ref.return_type == chain.scan->types[field];
	}
}

//! The struct leaf `route` reaches from scan column `field`, or false where the path leaves the
//! structs the file stores.
bool LeafOf(const ScanBindData &scan, idx_t field, const std::vector<size_t> &route, StructLeaf &leaf) {
	leaf.field = field;
	leaf.route = route;
	leaf.type = scan.fields[field].type;
	leaf.logical = scan.types[field];
	for (auto i : route) {
		if (leaf.type.id != vtx::TypeId::STRUCT || leaf.logical.id() != LogicalTypeId::STRUCT ||
		    i >= leaf.type.Children().size()) {
			return false;
		}
		leaf.type = leaf.type.Children()[i].type;
		leaf.logical = StructType::GetChildType(leaf.logical, i);
	}
	return true;
}


//! Adds a reason to what EXPLAIN shows under `Not Pushed` on the scan (each reason once).
void NoteNotPushed(ScanBindData &scan, const std::string &why) {
	if (scan.not_pushed.find(why) == std::string::npos) {
		scan.not_pushed += (scan.not_pushed.empty() ? "" : "; ") + why;
	}
}

//! The distinct values a pushed count(DISTINCT x) holds (from zones that keep no list of them)
//! may take at most this share of DuckDB's memory_limit: DuckDB's own aggregate would hold the
//! same values in its hash table, but ours are outside its buffer manager.
constexpr uint64_t kDistinctMemoryShare = 4;

//! Bytes a distinct value costs in DistinctSet: a word in a table at most half full (and growing
//! by doubling), or a string in a node-based set.
uint64_t DistinctValueBytes(const vtx::ColumnType &type) {
	const auto w = type.ByteWidth();
	return w >= 1 && w <= 8 ? 32 : 96;
}

//! Where a distinct count can come from the files: count(DISTINCT x) from the zones' distinct
//! values, and the decoded values of zones that keep none while those fit the memory budget
//! (estimated from each zone's sketch, else its rows); approx_count_distinct from sketches made
//! with the very hash of the running DuckDB. Where not, EXPLAIN says why.
bool DistinctFromFiles(ClientContext &context, ScanBindData &scan, const PushedAggregate &a, const LogicalType &stored) {
	if (a.kind == AggregateKind::COUNT_DISTINCT) {
		double values = 0; // an over-estimate: a value in several zones counts once per zone
		for (auto &f : scan.files) {
			for (auto &z : f.meta->zones) {
				auto &s = z.chunks[a.field].stats;
				if (s.NonNull() == 0 || s.has_distinct) {
					continue;
				}
				double zone = static_cast<double>(s.NonNull());
				if (s.has_sketch) {
					HyperLogLog hll;
					MergeRegisters(hll, s.sketch);
					zone = std::min(zone, 1.5 * static_cast<double>(hll.Count()) + 64); // HLL of 64 registers: ~13% error
				}
				values += zone;
			}
		}
		const double budget =
		    static_cast<double>(BufferManager::GetBufferManager(context).GetMaxMemory()) / kDistinctMemoryShare;
		if (values * static_cast<double>(DistinctValueBytes(scan.fields[a.field].type)) > budget) {
			NoteNotPushed(scan, a.display + ": about " + std::to_string(static_cast<uint64_t>(values)) +
			                  " distinct values in zones that keep no list of them, more than the reader holds for it "
			                  "(a quarter of memory_limit)");
			return false;
		}
		return true;
	}
	if (a.kind != AggregateKind::APPROX_DISTINCT) {
		return true;
	}
	const uint64_t fingerprint = HashFingerprint(context, stored);
	for (auto &f : scan.files) {
		auto &prints = f.meta->hash_fingerprints;
		bool sketched = !prints.empty() && prints[a.field] != 0;
		for (auto &z : f.meta->zones) {
			auto &s = z.chunks[a.field].stats;
			sketched = sketched && (s.has_sketch || s.NonNull() == 0);
		}
		if (!sketched) {
			NoteNotPushed(scan, a.display + ": \"" + f.path + "\" keeps no sketches of the column (written before format version 4, or with SKETCHES false)");
			return false;
		}
		if (prints[a.field] != fingerprint) {
			NoteNotPushed(scan, a.display + ": \"" + f.path + "\" was written by a DuckDB whose hash of " +
			                  stored.ToString() + " differs from this one's");
			return false;
		}
	}
	return true;
}

//! Float sums are pushed only over files whose statistics hold exact sums (format version 4):
//! older files summed each zone in row order as doubles, which depends on the zone size. Where
//! a file is older, EXPLAIN says so on the scan.
bool ExactFloatSums(ScanBindData &scan, const std::string &aggregate) {
	for (auto &f : scan.files) {
		if (f.meta->version < vtx::kExactFloatSumVersion) {
			NoteNotPushed(scan, aggregate + ": \"" + f.path + "\" is format version " + std::to_string(f.meta->version) +
			                  ", whose float sums are rounded (rewrite it with COPY to push float sums)");
			return false;
		}
	}
	return true;
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
	if (!IsVortexScan(get.function) || !get.bind_data || get.extra_info.sample_options) {
		return false;
	}
	chain.get = &get;
	chain.scan = dynamic_cast<ScanBindData *>(get.bind_data.get());
	if (chain.scan && !chain.scan->uniform) {
		// Files differ in schema (scan/schema_union.hpp): a column missing from a file or cast from
		// another type has no zone statistics of the scan's type, so its aggregates stay DuckDB's.
		chain.scan->not_pushed = chain.scan->hive_fields.empty()
		                             ? "the files' schemas differ (missing or widened columns)"
		                             : "a partition key replaces a column of the files (their statistics of it do not apply)";
		return false;
	}
	if (chain.scan && chain.scan->row_number_column) {
		// The pushed and grouped scans number their columns without it.
		chain.scan->not_pushed = "file_row_number := true (select the virtual file_row_number column instead)";
		return false;
	}
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
//! Filters on fields of a STRUCT column (DuckDB's StructFilter, and AND conjunctions of them) as
//! filters on the fields' streams, which store a field NULL wherever a struct above it is NULL:
//! exactly `s.a` as DuckDB evaluates it.
bool TakeStructFilters(const ScanBindData &scan, idx_t id, const TableFilter &filter, PushedBindData &bind) {
	if (filter.filter_type == TableFilterType::CONJUNCTION_AND) {
		for (auto &child : filter.Cast<ConjunctionAndFilter>().child_filters) {
			if (!TakeStructFilters(scan, id, *child, bind)) {
				return false;
			}
		}
		return true;
	}
	std::vector<size_t> route;
	const TableFilter *f = &filter;
	std::string name = scan.fields[id].name;
	const vtx::ColumnType *type = &scan.fields[id].type;
	while (f->filter_type == TableFilterType::STRUCT_EXTRACT) {
		auto &sf = f->Cast<StructFilter>();
		if (type->id != vtx::TypeId::STRUCT || sf.child_idx >= type->Children().size() || !sf.child_filter) {
			return false;
		}
		route.push_back(sf.child_idx);
		name += type->ChildPath(sf.child_idx);
		type = &type->Children()[sf.child_idx].type;
		f = sf.child_filter.get();
	}
	StructLeaf leaf;
	PushedFilter pf;
	bool dynamic = false;
	if (route.empty() || !ExactFilter(*f) || !LeafOf(scan, id, route, leaf) ||
	    !vtx::compute::PredicateSupported(leaf.type) ||
	    !TranslateFilter(*f, leaf.logical, FilterUse::EXACT, pf.predicate, dynamic) || dynamic) {
		return false;
	}
	pf.field = scan.fields.size() + bind.leaves.size();
	pf.display = f->ToString(name);
	bind.leaves.push_back(std::move(leaf));
	bind.filters.push_back(std::move(pf));
	return true;
}

//! `with_leaves`: filters on struct fields may be taken (the grouped path does not take them).
bool TakeFilters(ClientContext &context, const Chain &chain, PushedBindData &bind, bool with_leaves) {
	auto &scan = *chain.scan;
	std::vector<bool> keep(scan.files.size(), true);
	for (auto &entry : chain.get->table_filters.filters) {
		const idx_t id = entry.first;
		auto &filter = *entry.second;
		if (id < scan.fields.size() && scan.fields[id].type.id == vtx::TypeId::STRUCT) {
			if (!with_leaves || !TakeStructFilters(scan, id, filter, bind)) {
				return false;
			}
			continue;
		}
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
		bind.file_filters.push_back(filter.ToString(scan.IsHiveColumn(id)                      ? scan.hive.keys[id - scan.HiveBase()]
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
	// The filters vortex_scan took out of the plan: the pushed aggregate applies them too, with
	// the partition keys and file names of the files it keeps.
	bind.expressions = scan.expression_filters;
	bind.file_columns.field_count = scan.fields.size();
	bind.file_columns.hive.keys = scan.hive.keys;
	bind.file_columns.hive.types = scan.hive.types;
	bind.file_columns.filename_column = scan.filename_column;
	for (idx_t f = 0; f < scan.files.size(); f++) {
		if (keep[f]) {
			bind.files.push_back(scan.files[f]);
			if (!scan.hive.keys.empty()) {
				bind.file_columns.hive.values.push_back(scan.hive.values[f]);
			}
		}
	}
	return true;
}

//! Key types whose raw bytes are equal exactly when DuckDB's GROUP BY puts values together:
//! not floats (-0.0 and 0.0, NaNs), intervals (normalised) or TIME WITH TIME ZONE.
bool GroupableKey(const LogicalType &t) {
	switch (t.id()) {
	case LogicalTypeId::FLOAT:
	case LogicalTypeId::DOUBLE:
	case LogicalTypeId::INTERVAL:
	case LogicalTypeId::TIME_TZ:
		return false;
	default:
		return true;
	}
}

//! Follows a group's binding down through projections of plain column references.
const Expression *Unwrap(const Chain &chain, const Expression &expr) {
	const Expression *e = &expr;
	while (e->GetExpressionClass() == ExpressionClass::BOUND_COLUMN_REF) {
		auto &ref = e->Cast<BoundColumnRefExpression>();
		const Expression *next = nullptr;
		for (auto *p : chain.projections) {
			if (p->table_index == ref.binding.table_index && ref.binding.column_index < p->expressions.size()) {
				next = p->expressions[ref.binding.column_index].get();
			}
		}
		if (!next) {
			break;
		}
		e = next;
	}
	return e;
}

//! Whether `e` is a hive partition column of the scan; `column` is then its scan column id.
bool HiveColumn(const Chain &chain, const Expression &e, idx_t &column) {
	if (e.GetExpressionClass() != ExpressionClass::BOUND_COLUMN_REF) {
		return false;
	}
	auto &ref = e.Cast<BoundColumnRefExpression>();
	auto &ids = chain.get->GetColumnIds();
	if (ref.binding.table_index != chain.get->table_index || ref.binding.column_index >= ids.size()) {
		return false;
	}
	column = ids[ref.binding.column_index].GetPrimaryIndex();
	return chain.scan->IsHiveColumn(column);
}

//! Keys under DuckDB's compressed materialization (compressed_materialization.hpp) are grouped
//! raw and the same function is applied to each group's key, which is exact because the mapping
//! is injective. This replaces the column reference under a compress function by input column 0.
unique_ptr<Expression> KeyTransform(const Expression &compress, const LogicalType &key_type) {
	auto copy = compress.Copy();
	auto &fn = copy->Cast<BoundFunctionExpression>();
	fn.children[0] = make_uniq<BoundReferenceExpression>(key_type, 0);
	return copy;
}

//! A GROUP BY key as the grouped scan computes it: a scan column, the bucket function of it whose
//! results are the groups (null for the column itself), and the injective function DuckDB applies
//! to the key under compressed materialization (null for none).
struct GroupKey {
	idx_t field;
	unique_ptr<Expression> bucket;
	std::string bucket_display;
	bool monotone = true;
	unique_ptr<Expression> transform;
};

//! A calendar field of a column (`hour(ts)`): not monotone; its keys come from DuckDB's executor
//! per row, and a zone within one unit of it has one key (BucketEvaluator::OneKey).
bool CalendarKey(const Expression &e, const Expression *&input, bool &monotone) {
	if (!CalendarFieldOf(e, input) || input->GetExpressionClass() != ExpressionClass::BOUND_COLUMN_REF) {
		return false;
	}
	monotone = false;
	return true;
}

//! The scan fields a GROUP BY groups on: plain columns of the scan of groupable types, uncast,
//! bucket functions of such columns (bucket_keys.hpp), or either under DuckDB's compressed
//! materialization.
bool ResolveKeys(ClientContext &context, const Chain &chain, const LogicalAggregate &agg, std::vector<GroupKey> &keys) {
	const bool buckets = SettingEnabled(context, Setting::PUSHDOWN_EXPRESSIONS);
	for (auto &g : agg.groups) {
		GroupKey key;
		const Expression *inner = Unwrap(chain, *g);
		if (IsCompressFunction(*inner)) {
			auto &fn = inner->Cast<BoundFunctionExpression>();
			if (fn.children.empty()) {
				return false;
			}
			for (idx_t i = 1; i < fn.children.size(); i++) {
				if (fn.children[i]->GetExpressionClass() != ExpressionClass::BOUND_CONSTANT) {
					return false;
				}
			}
			key.transform = KeyTransform(*inner, fn.children[0]->return_type);
			inner = Unwrap(chain, *fn.children[0]);
		}
		const Expression *input = nullptr;
		if (!key.transform && HiveColumn(chain, *inner, key.field)) {
			// Hive partition keys are one value per file: every zone's key is constant.
			if (inner->return_type != g->return_type) {
				return false;
			}
			keys.push_back(std::move(key));
			continue;
		}
		if (inner->GetExpressionClass() == ExpressionClass::BOUND_COLUMN_REF) {
			if (!ResolveColumn(chain, *inner, key.field) || inner->return_type != chain.scan->types[key.field]) {
				return false;
			}
		} else if (buckets && !compat::GroupsKeyItself(*inner) &&
		           (BucketFunction(context, *inner, input, key.monotone) || CalendarKey(*inner, input, key.monotone))) {
			if (!ResolveColumn(chain, *input, key.field) || input->return_type != chain.scan->types[key.field] ||
			    chain.scan->fields[key.field].type.IsNested()) {
				return false;
			}
			key.bucket = BucketOverInput(*inner, *input);
			key.bucket_display = inner->ToString();
			vtx::ColumnType result;
			if (!GroupableKey(key.bucket->return_type) || !ToColumnType(key.bucket->return_type, result) ||
			    result.Kind() == vtx::PhysicalKind::FLOAT || result.ByteWidth() == 0 || result.ByteWidth() > 8) {
				return false;
			}
			keys.push_back(std::move(key));
			continue;
		} else {
			return false;
		}
		if (!GroupableKey(chain.scan->types[key.field]) ||
		    chain.scan->fields[key.field].type.Kind() == vtx::PhysicalKind::FLOAT) {
			return false;
		}
		keys.push_back(std::move(key));
	}
	return true;
}

//! A fixed-width integer-like value (integers, DATE days, TIMESTAMP microseconds) as stored.
hugeint_t StorageInteger(const Value &v) {
	switch (v.type().InternalType()) {
	case PhysicalType::INT8: return hugeint_t(v.GetValueUnsafe<int8_t>());
	case PhysicalType::INT16: return hugeint_t(v.GetValueUnsafe<int16_t>());
	case PhysicalType::INT32: return hugeint_t(v.GetValueUnsafe<int32_t>());
	case PhysicalType::INT64: return hugeint_t(v.GetValueUnsafe<int64_t>());
	case PhysicalType::UINT8: return hugeint_t(v.GetValueUnsafe<uint8_t>());
	case PhysicalType::UINT16: return hugeint_t(v.GetValueUnsafe<uint16_t>());
	case PhysicalType::UINT32: return hugeint_t(v.GetValueUnsafe<uint32_t>());
	case PhysicalType::UINT64: return hugeint_t(v.GetValueUnsafe<uint64_t>());
	default: return hugeint_t(0);
	}
}

//! An upper bound on the buckets of a key in one zone: one where its statistics prove one, else
//! the distance between the buckets of its min and max over the function's granularity (or, not
//! monotone, the column's own bound, or one where a calendar field has one key in the zone).
uint64_t BucketsBound(const ScanBindData &scan, const GroupKey &key, BucketEvaluator &bucket, const vtx::ChunkMeta &chunk,
                      uint64_t rows) {
	auto &stats = chunk.stats;
	const uint64_t column_bound = vtx::compute::GroupedAggregation::KeysBound(scan.fields[key.field].type, chunk, rows);
	if (!stats.has_minmax || !stats.minmax_exact || scan.fields[key.field].type.IsFloat()) {
		return column_bound;
	}
	const auto min = RawToValue(scan.types[key.field], stats.min);
	const auto max = RawToValue(scan.types[key.field], stats.max);
	// Buckets between the results of min and max, over the result's granularity.
	auto between = [&](const Value &lo, const Value &hi, const Expression &function) {
		if (lo.IsNull() || hi.IsNull()) {
			return column_bound;
		}
		const hugeint_t distance = StorageInteger(hi) - StorageInteger(lo);
		const hugeint_t count = distance / hugeint_t(BucketGranularity(function)) + hugeint_t(1) +
		                        hugeint_t(stats.nulls > 0 ? 1 : 0);
		return count < hugeint_t(column_bound) ? static_cast<uint64_t>(count.lower) : column_bound;
	};
	if (key.monotone) {
		Value lo, hi;
		if (!bucket.Apply(min, lo) || !bucket.Apply(max, hi)) {
			return column_bound; // an end a filter may remove raises an error: unknown
		}
		return between(lo, hi, *key.bucket);
	}
	const bool one = bucket.OneKey(min, max);
	if (one && stats.nulls == 0) {
		return 1; // answered from statistics
	}
	if (!bucket.CalendarField()) {
		return one ? MinValue<uint64_t>(column_bound, 2) : column_bound;
	}
	// Row by row through DuckDB's executor, the reader's grouping of a calendar field was slower
	// than DuckDB's own (10M rows, `hour(ts)` over zones of ten days: 177 against 133 ms); with
	// native/compute's kernel it is faster, and an ascending zone's keys come as runs, one per unit
	// of the field's truncation (SortedKeyRuns). Such a zone's keys are bounded by those units and
	// by the field's values (24 hours). (Without a kernel: decade, century, millennium.)
	if (!bucket.HasKernel()) {
		return rows;
	}
	const uint64_t units = between(bucket.Truncate(min), bucket.Truncate(max), *bucket.Truncation());
	const uint64_t values = bucket.KeyValues();
	return values ? MinValue<uint64_t>(units, values + (stats.nulls > 0 ? 1 : 0)) : units;
}

//! Keys as the grouped scan takes them: scan fields, their buckets and transforms.
void SplitKeys(std::vector<GroupKey> &keys, std::vector<idx_t> &fields, vector<unique_ptr<Expression>> &transforms) {
	for (auto &k : keys) {
		fields.push_back(k.field);
		transforms.push_back(std::move(k.transform));
	}
}

//! Zones whose keys are constant are answered from statistics; the others are decoded and
//! grouped in the reader: one pass per column over dense per-zone group ids (dictionary codes,
//! narrow integer ranges, else a hash table), accumulators per id, then one lookup per group
//! and zone into the query's groups. Measured against DuckDB's own hash aggregate over the
//! same decoded rows (10M rows, zones of 122,880, sum/min/max/avg of a BIGINT, 2 threads):
//! 8 groups a zone (dictionary strings, integer ranges) 1.5-2.8x faster, 1,000 groups 1.2-1.6x
//! faster, 4,000 groups 1.5x slower — the per-group work (a lookup and a merge per zone) then
//! outweighs the per-row saving — and high-cardinality keys 5-16x slower. So a decoded zone
//! is cheap when its metadata bounds its groups (KeysBound, multiplied over the keys) to at most
//! one per kRowsPerGroup rows; zones straddling a WHERE filter are decoded and filtered as
//! DuckDB would, and count the same way. The query is pushed when at most kMaxExpensiveShare of
//! its rows lie in zones that are not cheap; elsewhere DuckDB aggregates.
//! A lone monotone bucket key costs more per group: its keys come from DuckDB's executor as
//! values, and an ascending column's runs are found around every change. Over a sorted TIMESTAMP (8M rows, 2
//! threads, sum and count per `time_bucket`) pushed against pushdown off: 120 rows a group 0.5x,
//! 300 rows 1.2x, 600 rows 2.3x; the break-even is near 235 rows. 200 keeps coarse keys of
//! small zones (a NULL group beside 8 buckets in 2,048 rows) pushed.
constexpr uint64_t kRowsPerGroup = 100;
constexpr uint64_t kRowsPerBucketGroup = 200;
constexpr double kMaxExpensiveShare = 0.25;
//! Grouping rows a filter straddles costs the reader a decode of every key and value column of the
//! zone, a filter and a compaction before the aggregation, where DuckDB's filtered scan decodes
//! the other columns only for the rows kept: measured (bench/sweep.mjs), pushed is up to 3x
//! slower where few rows pass, and faster where most do and a bucket key is computed per row by
//! DuckDB. Where the filters straddle more than this share of the rows, the aggregate is pushed
//! only with a bucket key and more than kMinKeptShare of those rows estimated to pass.
constexpr double kMaxStraddlingShare = 0.5;
constexpr double kMinKeptShare = 0.5;

//! Every group of the query, not only every group of a zone, costs the table of groups: it is
//! made, its states are merged across threads, finished and handed on one by one, where
//! DuckDB's hash aggregate keeps a group in a row of its table. Measured over clustered string
//! keys (bench/group-count.mjs, 10M rows, 2 threads), the table of groups against pushdown off,
//! by rows per group of the whole query and the value columns aggregated:
//!   none (count(*)):         1,000 rows 0.68x, 666 rows 0.84x, 333 rows 1.84x;
//!   one (sum):               1,666 rows 0.86x, 1,000 rows 1.17x, 666 rows 1.39x;
//!   two (max(v), min(w)):    3,333 rows 0.80x, 1,000 rows 1.21x, 333 rows 2.03x;
//! and at 1M rows, 333 rows a group 1.10-1.70x. So a query is cheap only with kRowsPerTotalGroup
//! rows a group for each state a group keeps (its count and one per value column). Under
//! kMinTotalGroups groups the whole difference is a few milliseconds and the rule does not apply.
//! The groups are estimated from the keys' zone sketches merged (HyperLogLog of 64 registers:
//! about 13% off), and are at most the zones' own bounds summed.
constexpr uint64_t kRowsPerTotalGroup = 600;
constexpr double kMinTotalGroups = 1024;

enum class GroupCost { CHEAP, MANY_GROUPS, MANY_TOTAL_GROUPS, STRADDLING };

//! How a query's filters meet the files' zones: the rows of zones they do not rule out, of those
//! the rows of zones they straddle, and the rows of those estimated to pass.
struct FilterReach {
	uint64_t total = 0;
	uint64_t straddling = 0;
	double kept = 0;

	bool MostlyStraddled() const {
		return static_cast<double>(straddling) > kMaxStraddlingShare * static_cast<double>(total);
	}
};

//! `each` is called for every zone the filters do not rule out.
FilterReach ReachOf(const ScanBindData &scan, const std::vector<ScanFile> &files, const std::vector<PushedFilter> &filters,
                    const std::function<void(const vtx::ZoneMeta &)> &each = nullptr) {
	FilterReach r;
	for (auto &f : files) {
		for (auto &z : f.meta->zones) {
			auto match = vtx::compute::ZoneMatch::ALL;
			for (auto &pf : filters) {
				match = vtx::compute::And(
				    match, vtx::compute::ClassifyZone(pf.predicate, scan.fields[pf.field].type, z.chunks[pf.field].stats));
			}
			if (match == vtx::compute::ZoneMatch::NONE) {
				continue; // skipped at execution
			}
			r.total += z.rows;
			if (match == vtx::compute::ZoneMatch::SOME) {
				r.straddling += z.rows;
				double share = 1;
				for (auto &pf : filters) {
					share *= vtx::compute::EstimateShare(pf.predicate, scan.fields[pf.field].type, z.chunks[pf.field].stats);
				}
				r.kept += share * static_cast<double>(z.rows);
			}
			if (each) {
				each(z);
			}
		}
	}
	return r;
}

//! An ungrouped aggregate pushed under filters that straddle the zones decodes its value columns
//! for every straddling zone; DuckDB's filtered scan decodes them only for the vectors where a row
//! passes. Where few do (bench/sweep.mjs: `count(c1), max(c4), approx_count_distinct(c4) WHERE
//! c2 = … AND c0 <= …`, 7,000 of 1M rows, 11 ms pushed against 3.4 ms), that is the cheaper plan:
//! true where the filters straddle more than kMaxStraddlingShare of the rows, fewer than one row
//! in kRowsPerKept of those is estimated to pass, and an aggregate reads a column no filter reads.
//! (Where 10% pass, pushed and DuckDB measured alike.) Filters on struct fields are not estimated.
constexpr double kRowsPerKept = 2048;

bool FewRowsPassStraddling(const ScanBindData &scan, const std::vector<ScanFile> &files, const PushedBindData &bind,
                           FilterReach &reach) {
	bool other_column = false;
	for (auto &p : bind.aggregates) {
		bool filtered = p.kind == AggregateKind::COUNT_STAR;
		for (auto &pf : bind.filters) {
			filtered = filtered || pf.field == p.field;
		}
		other_column = other_column || !filtered;
	}
	for (auto &pf : bind.filters) {
		if (pf.field >= scan.fields.size()) {
			return false;
		}
	}
	if (!other_column || bind.filters.empty()) {
		return false;
	}
	reach = ReachOf(scan, files, bind.filters);
	return reach.MostlyStraddled() && reach.kept * kRowsPerKept < static_cast<double>(reach.straddling);
}

//! An estimate of the distinct values (NULL counting as one) of `field` over the zones `zones`
//! lists, from their sketches; infinity where a zone with values keeps none.
double SketchedKeys(const ScanBindData &scan, idx_t field, const std::vector<const vtx::ZoneMeta *> &zones) {
	if (scan.IsHiveColumn(field)) {
		std::set<std::string> values; // one per file
		for (auto &v : scan.hive.values) {
			values.insert(v[field - scan.HiveBase()].ToString());
		}
		return static_cast<double>(values.size());
	}
	HyperLogLog registers;
	bool nulls = false;
	for (auto *z : zones) {
		auto &s = z->chunks[field].stats;
		nulls = nulls || s.nulls > 0;
		if (s.has_sketch) {
			MergeRegisters(registers, s.sketch);
		} else if (s.NonNull() != 0) {
			return std::numeric_limits<double>::infinity();
		}
	}
	return static_cast<double>(registers.Count()) + (nulls ? 1 : 0);
}

GroupCost CheapToGroup(ClientContext &context, const ScanBindData &scan, const std::vector<ScanFile> &files,
                       const std::vector<PushedFilter> &filters, const std::vector<GroupKey> &keys, idx_t states,
                       FilterReach &reach, double &total_groups) {
	std::vector<std::unique_ptr<BucketEvaluator>> buckets;
	for (auto &k : keys) {
		buckets.push_back(k.bucket ? std::make_unique<BucketEvaluator>(context, *k.bucket, scan.fields[k.field].type, k.monotone)
		                           : nullptr);
	}
	uint64_t expensive = 0;
	// (Measured for the runs of one bucket key; other keys group by dense ids per row.)
	const uint64_t rows_per_group =
	    keys.size() == 1 && keys[0].bucket && (keys[0].monotone || buckets[0]->CalendarField()) ? kRowsPerBucketGroup
	                                                                                              : kRowsPerGroup;
	double zone_groups = 0; // the zones' bounds summed: a key's groups are at most that
	std::vector<const vtx::ZoneMeta *> zones;
	reach = ReachOf(scan, files, filters, [&](const vtx::ZoneMeta &z) {
		zones.push_back(&z);
		uint64_t groups = 1;
		for (idx_t i = 0; i < keys.size(); i++) {
			auto k = keys[i].field;
			if (scan.IsHiveColumn(k)) {
				continue; // one value per file
			}
			auto bound = buckets[i] ? BucketsBound(scan, keys[i], *buckets[i], z.chunks[k], z.rows)
			                        : vtx::compute::GroupedAggregation::KeysBound(scan.fields[k].type, z.chunks[k], z.rows);
			groups = groups > z.rows / bound ? z.rows + 1 : groups * bound; // saturating at "too many"
		}
		if (groups > 1 && groups * rows_per_group > z.rows) {
			expensive += z.rows;
		}
		zone_groups += static_cast<double>(groups);
	});
	// Without a sketch of every key the estimate is unknown and the rule below does not apply: the
	// zones' bounds summed count a value once per zone, thousands of times too many for a random
	// key whose zones all hold the same values.
	total_groups = 1;
	for (auto &k : keys) { // a bucket has at most its column's values
		total_groups *= SketchedKeys(scan, k.field, zones);
	}
	if (total_groups != std::numeric_limits<double>::infinity()) {
		total_groups = std::min(total_groups, zone_groups);
	}
	bool bucket = false;
	for (auto &k : keys) {
		bucket = bucket || k.bucket;
	}
	if (reach.MostlyStraddled() && (!bucket || reach.kept <= kMinKeptShare * static_cast<double>(reach.straddling)) &&
	    SettingEnabled(context, Setting::PUSHDOWN_COST_BASED)) {
		return GroupCost::STRADDLING;
	}
	if (static_cast<double>(expensive) > kMaxExpensiveShare * static_cast<double>(reach.total)) {
		return GroupCost::MANY_GROUPS;
	}
	// (A bucket key costs DuckDB its function on every row, 15-20 ns at 10M rows, far more than
	// the per-row saving measured above: a sorted TIMESTAMP's `date_trunc('minute', ts)` over 300
	// rows a minute, the table of groups 82 ms against 177 ms off. kRowsPerBucketGroup rules there.)
	if (!bucket && total_groups > kMinTotalGroups && total_groups != std::numeric_limits<double>::infinity() &&
	    total_groups * static_cast<double>(kRowsPerTotalGroup * (states + 1)) > static_cast<double>(reach.total) &&
	    SettingEnabled(context, Setting::PUSHDOWN_COST_BASED)) {
		return GroupCost::MANY_TOTAL_GROUPS;
	}
	return GroupCost::CHEAP;
}

//! The value columns a grouped aggregate keeps a state for in each group (count(*) none).
idx_t StateColumns(const PushedBindData &bind) {
	std::set<idx_t> fields;
	for (auto &a : bind.aggregates) {
		if (a.kind != AggregateKind::COUNT_STAR) {
			fields.insert(a.field);
		}
	}
	return fields.size();
}

//! Values of `field` a pushed count(DISTINCT) would hash one by one, of `all` non-NULL ones: a
//! zone's own list of distinct values is taken whole (per group, only where every key is constant
//! in the zone); every other row is decoded and hashed.
uint64_t DistinctValuesOneByOne(const ScanBindData &scan, idx_t field, const std::vector<GroupKey> &keys,
                                uint64_t &all) {
	uint64_t row_by_row = 0;
	all = 0;
	for (auto &f : scan.files) {
		for (auto &z : f.meta->zones) {
			auto &s = z.chunks[field].stats;
			all += s.NonNull();
			bool whole = s.has_distinct;
			for (idx_t i = 0; whole && i < keys.size(); i++) {
				if (scan.IsHiveColumn(keys[i].field)) {
					continue;
				}
				bool is_null;
				std::string key;
				whole = !keys[i].bucket && vtx::compute::GroupedAggregation::ConstantKey(
				                               scan.fields[keys[i].field].type, z.chunks[keys[i].field].stats, is_null, key);
			}
			row_by_row += whole ? 0 : s.NonNull();
		}
	}
	return row_by_row;
}

//! Replaces the grouped aggregate by a scan emitting [keys..., aggregates...] per group. The
//! get takes the aggregate's group_index as its table index, so the keys' bindings hold; the
//! aggregates' bindings (aggregate_index, j) are rewritten above it to (group_index, keys + j).
//! `sorted`: only where SortedKeyZones holds (the aggregate is left to DuckDB otherwise: false).
bool PushGrouped(LogicalAggregate &agg, const Chain &chain, std::vector<GroupKey> group_keys, PushedBindData pushed,
                 unique_ptr<LogicalOperator> &op, vector<ReplacementBinding> &rebind, bool sorted) {
	auto bind = make_uniq<GroupedBindData>();
	std::vector<idx_t> keys;
	vector<unique_ptr<Expression>> transforms;
	for (auto &k : group_keys) {
		bind->key_buckets.push_back(std::move(k.bucket));
		bind->bucket_display.push_back(k.bucket_display);
		bind->bucket_monotone.push_back(k.monotone);
	}
	SplitKeys(group_keys, keys, transforms);
	for (auto &k : keys) {
		// The grouped scan numbers partition keys right after the fields (it has no `filename`).
		if (chain.scan->IsHiveColumn(k)) {
			k = chain.scan->fields.size() + (k - chain.scan->HiveBase());
		}
	}
	bind->files = std::move(pushed.files); // those the partition and filename filters kept
	bind->fields = chain.scan->fields;
	bind->field_types = chain.scan->types;
	bind->keys = std::move(keys);
	bind->aggregates = std::move(pushed.aggregates);
	bind->filters = std::move(pushed.filters);
	bind->expressions = std::move(pushed.expressions);
	bind->file_columns = std::move(pushed.file_columns);
	bind->file_filters = std::move(pushed.file_filters);
	vector<LogicalType> types;
	vector<string> names;
	for (idx_t i = 0; i < bind->keys.size(); i++) {
		auto k = bind->keys[i];
		types.push_back(agg.groups[i]->return_type);
		names.push_back(bind->key_buckets[i] ? bind->bucket_display[i]
		                : bind->IsHive(k)     ? chain.scan->hive.keys[k - chain.scan->fields.size()]
		                                      : chain.scan->fields[k].name);
	}
	// Hive values per kept file (paths are unique in a scan).
	bind->hive.keys = chain.scan->hive.keys;
	bind->hive.types = chain.scan->hive.types;
	for (auto &kept : bind->files) {
		for (idx_t f = 0; f < chain.scan->files.size() && !chain.scan->hive.keys.empty(); f++) {
			if (chain.scan->files[f].path == kept.path) {
				bind->hive.values.push_back(chain.scan->hive.values[f]);
				break;
			}
		}
	}
	bind->key_transforms = std::move(transforms);
	bind->sorted = sorted;
	if (sorted && !SortedKeyZones(*bind)) {
		return false;
	}
	for (idx_t i = 0; i < agg.expressions.size(); i++) {
		types.push_back(agg.expressions[i]->return_type);
		names.push_back(bind->aggregates[i].display);
		rebind.emplace_back(ColumnBinding(agg.aggregate_index, i),
		                    ColumnBinding(agg.group_index, bind->keys.size() + i));
	}
	auto estimate = agg.has_estimated_cardinality ? agg.estimated_cardinality : idx_t(0);
	auto get = make_uniq<LogicalGet>(agg.group_index, GetGroupedAggregateFunction(), std::move(bind), types, names);
	for (idx_t i = 0; i < types.size(); i++) {
		get->AddColumnId(i);
	}
	if (estimate) {
		get->has_estimated_cardinality = true;
		get->estimated_cardinality = estimate;
	}
	op = std::move(get);
	return true;
}

//! A SELECT list of which only some aggregates can be pushed (a float min/max beside sums):
//! those are answered by the reader as their own one-row scan, the others by DuckDB's aggregate
//! over the plain scan, and the two rows joined. Only where the pushed part costs next to nothing
//! (no filter, every zone's statistics answer): otherwise the two would read the same zones twice.
//! Unused columns are then pruned from the plain scan (RemoveUnusedColumns, after the rewrite).
bool PushPart(Binder &binder, LogicalAggregate &agg, const Chain &chain, unique_ptr<PushedBindData> bind,
              const std::vector<idx_t> &pushed_at, const std::vector<idx_t> &residual_at,
              unique_ptr<LogicalOperator> &op, vector<ReplacementBinding> &rebind) {
	if (!bind->filters.empty() || !bind->expressions.empty() || !bind->file_filters.empty()) {
		return false;
	}
	for (auto &f : bind->files) {
		for (auto &z : f.meta->zones) {
			for (auto &p : bind->aggregates) {
				if (p.kind == AggregateKind::COUNT_STAR) {
					continue;
				}
				if (!vtx::compute::AggregateState::StatsSuffice(
				        bind->Chunk(z, p.field).stats, Needs(p.kind, kNeedsMinMax), Needs(p.kind, kNeedsSum),
				        Needs(p.kind, kNeedsSketch), Needs(p.kind, kNeedsDistinct))) {
					return false;
				}
			}
		}
	}
	const idx_t get_index = binder.GenerateTableIndex();
	const idx_t residual_index = binder.GenerateTableIndex();
	vector<LogicalType> types;
	vector<string> names;
	for (idx_t k = 0; k < pushed_at.size(); k++) {
		types.push_back(agg.expressions[pushed_at[k]]->return_type);
		names.push_back(bind->aggregates[k].display);
		rebind.emplace_back(ColumnBinding(agg.aggregate_index, pushed_at[k]), ColumnBinding(get_index, k));
	}
	vector<unique_ptr<Expression>> residual;
	for (idx_t r = 0; r < residual_at.size(); r++) {
		residual.push_back(std::move(agg.expressions[residual_at[r]]));
		rebind.emplace_back(ColumnBinding(agg.aggregate_index, residual_at[r]), ColumnBinding(residual_index, r));
	}
	agg.expressions = std::move(residual);
	agg.aggregate_index = residual_index;
	auto get = make_uniq<LogicalGet>(get_index, GetPushedAggregateFunction(), std::move(bind), types, names);
	for (idx_t i = 0; i < types.size(); i++) {
		get->AddColumnId(i);
	}
	get->has_estimated_cardinality = true;
	get->estimated_cardinality = 1;
	op = LogicalCrossProduct::Create(std::move(get), std::move(op));
	return true;
}

//! `partial`: set where a SELECT list was pushed in part (PushPart).
void TryPush(ClientContext &context, Binder &binder, const RulesTable &rules, unique_ptr<LogicalOperator> &op,
             vector<ReplacementBinding> &rebind, bool &partial) {
	auto &agg = op->Cast<LogicalAggregate>();
	const bool grouped = !agg.groups.empty();
	if (agg.grouping_sets.size() > 1 || !agg.grouping_functions.empty() || agg.expressions.empty() ||
	    agg.children.size() != 1) {
		return;
	}
	if (grouped && (!SettingEnabled(context, Setting::PUSHDOWN_GROUPED) || agg.grouping_sets.size() != 1 ||
	                agg.grouping_sets[0].size() != agg.groups.size())) {
		return;
	}
	Chain chain;
	if (!FindChain(*agg.children[0], chain)) {
		return;
	}
	// EXPLAIN says, on the scan, which aggregate kept the query from being pushed and why.
	auto decline = [&](const std::string &why) {
		NoteNotPushed(*chain.scan, why);
	};
	std::vector<GroupKey> keys;
	if (grouped && !ResolveKeys(context, chain, agg, keys)) {
		return;
	}
	auto bind = make_uniq<PushedBindData>();
	// Whether aggregate `e` can be answered by the reader (EXPLAIN says why not).
	auto consider = [&](unique_ptr<Expression> &e) -> bool {
		if (e->GetExpressionClass() != ExpressionClass::BOUND_AGGREGATE) {
			return false;
		}
		auto &a = e->Cast<BoundAggregateExpression>();
		const std::string shown_name = a.function.name == "sum_no_overflow" ? std::string("sum") : a.function.name;
		if (a.filter) {
			decline(shown_name + "(…) FILTER (WHERE …): an aggregate's own filter is left to DuckDB");
			return false;
		}
		if (a.order_bys && !a.order_bys->orders.empty()) {
			decline(shown_name + "(… ORDER BY …): an ordered aggregate is left to DuckDB");
			return false;
		}
		PushedAggregate p;
		auto spec = FindAggregate(a.function.name, a.IsDistinct());
		if (!spec) {
			decline(shown_name + (a.IsDistinct() ? "(DISTINCT …)" : "(…)") + ": not an aggregate the reader answers");
			return false;
		}
		p.kind = spec->kind;
		if (!SettingEnabled(context, spec->setting)) {
			decline(shown_name + ": " + SpecOf(spec->setting).name + " is false");
			return false;
		}
		const bool distinct_kind = p.kind == AggregateKind::COUNT_DISTINCT || p.kind == AggregateKind::APPROX_DISTINCT;
		if (grouped && spec->not_per_group) {
			decline(std::string(spec->kind_name) + ": not pushed per group (" + spec->not_per_group + ")");
			return false;
		}
		p.result_type = a.return_type;
		std::string type_key = "*";
		LogicalType stored = LogicalType::BIGINT;
		if (p.kind == AggregateKind::COUNT_STAR) {
			if (!a.children.empty()) {
				return false;
			}
			p.display = "count_star()";
		} else {
			std::vector<size_t> route;
			if (a.children.size() != 1 || !ResolveColumn(chain, *a.children[0], p.field, &route)) {
				decline(shown_name + "(…): its argument is not a plain column of the scan");
				return false;
			}
			p.bound_type = a.children[0]->return_type;
			stored = chain.scan->types[p.field];
			std::string name = chain.scan->fields[p.field].name;
			if (!route.empty()) {
				// A field of a struct: per group, as a 128-bit sum (whose proof reads the
				// column's statistics) or a distinct count, it is left to DuckDB.
				StructLeaf leaf;
				if (grouped || distinct_kind || !LeafOf(*chain.scan, p.field, route, leaf) ||
				    leaf.logical.InternalType() == PhysicalType::INT128) {
					return false;
				}
				stored = leaf.logical;
				const vtx::ColumnType *t = &chain.scan->fields[p.field].type;
				for (auto i : route) {
					name += t->ChildPath(i);
					t = &t->Children()[i].type;
				}
				p.field = chain.scan->fields.size() + bind->leaves.size();
				bind->leaves.push_back(std::move(leaf));
			}
			type_key = TypeKey(stored);
			// DuckDB's statistics pass may have bound sum(x) as its internal sum_no_overflow(x):
			// EXPLAIN shows what the user wrote.
			auto shown = a.function.name == "sum_no_overflow" ? std::string("sum") : a.function.name;
			p.display = shown + (p.kind == AggregateKind::COUNT_DISTINCT ? "(DISTINCT " : "(") + name + ")";
		}
		auto rule = rules.Find(RuleName(*spec, a.function.name), type_key);
		const bool float_minmax = (p.kind == AggregateKind::MIN || p.kind == AggregateKind::MAX) && IsFloatType(stored);
		if (float_minmax) {
			// The rules module's own words (src/rules.ts): never pushed, natively refused too.
			decline(p.display + ": float min/max is never pushed (DuckDB orders NaN above every number; zone statistics exclude NaN)");
			return false;
		}
		if (!rule) {
			decline(p.display + ": " + shown_name + "(" + type_key + ") is not on the allow-list (src/rules.ts)");
			return false;
		}
		if (!spec->native(p, stored, *chain.scan)) {
			decline(p.display + ": not answered from " + stored.ToString() + " zones (its result type or range is not one the reader proves)");
			return false;
		}
		if ((p.kind == AggregateKind::SUM || p.kind == AggregateKind::AVG) && IsFloatType(stored) &&
		    !ExactFloatSums(*chain.scan, p.display)) {
			return false;
		}
		if (distinct_kind && !DistinctFromFiles(context, *chain.scan, p, stored)) {
			return false;
		}
		if (p.kind == AggregateKind::COUNT_DISTINCT && SettingEnabled(context, Setting::PUSHDOWN_COST_BASED)) {
			// Hashing a value costs the reader about what DuckDB's own aggregate over the plain scan
			// costs (strings more: DuckDB hands them on as dictionaries; per group, every row):
			// pushed only where the zones' own lists answer nearly all of them (bench/distinct.mjs).
			uint64_t all = 0;
			const uint64_t one_by_one = DistinctValuesOneByOne(*chain.scan, p.field, keys, all);
			const auto width = chain.scan->fields[p.field].type.ByteWidth();
			const uint64_t share = !grouped && width >= 1 && width <= 8 ? 2 : 8;
			if (one_by_one * share > all) {
				decline(p.display + ": cost: " + std::to_string(one_by_one) + " of its " + std::to_string(all) +
				        " values are in zones that keep no list of their distinct values" +
				        (grouped ? " or whose group keys vary" : "") +
				        ", so the reader would hash them one by one, no faster than DuckDB's own aggregate");
				return false;
			}
		}
		// Per-group sums of 128-bit integers would need the no-overflow proof per group.
		if (grouped && (p.kind == AggregateKind::SUM || p.kind == AggregateKind::AVG) &&
		    stored.InternalType() == PhysicalType::INT128) {
			return false;
		}
		p.skip_nans = rule->skip_nans;
		p.empty_is_null = rule->empty_is_null;
		p.non_finite_is_nan = rule->non_finite_is_nan;
		bind->aggregates.push_back(std::move(p));
		return true;
	};
	std::vector<idx_t> pushed_at, residual_at;
	for (idx_t i = 0; i < agg.expressions.size(); i++) {
		const auto leaves = bind->leaves.size();
		if (consider(agg.expressions[i])) {
			pushed_at.push_back(i);
			continue;
		}
		bind->leaves.erase(bind->leaves.begin() + static_cast<std::ptrdiff_t>(leaves), bind->leaves.end());
		if (grouped) {
			return;
		}
		residual_at.push_back(i);
	}
	if (pushed_at.empty()) {
		return;
	}
	if (grouped) {
		// The same filters as the ungrouped path, classified per zone at execution.
		if (!TakeFilters(context, chain, *bind, false)) {
			return;
		}
		FilterReach reach;
		double total_groups = 0;
		const auto cost =
		    CheapToGroup(context, *chain.scan, bind->files, bind->filters, keys, StateColumns(*bind), reach, total_groups);
		if (cost == GroupCost::STRADDLING) {
			decline("GROUP BY: cost: the filters straddle the zones of " + std::to_string(reach.straddling) + " of " +
			        std::to_string(reach.total) + " rows, which DuckDB's filtered scan and hash aggregate group faster");
			return;
		}
		if (cost == GroupCost::CHEAP) {
			PushGrouped(agg, chain, std::move(keys), std::move(*bind), op, rebind, false);
			return;
		}
		// Too many groups for a table of groups: still pushed where the zones are sorted by the
		// key (sorted_grouped_scan.hpp), whose groups then cost no lookup at all.
		if (SettingEnabled(context, Setting::PUSHDOWN_SORTED_GROUPS) &&
		    PushGrouped(agg, chain, std::move(keys), std::move(*bind), op, rebind, true)) {
			return;
		}
		decline(cost == GroupCost::MANY_TOTAL_GROUPS
		            ? "GROUP BY: cost: about " + std::to_string(static_cast<uint64_t>(total_groups)) + " groups in " +
		                  std::to_string(reach.total) +
		                  " rows, too few rows a group for the reader's table of groups to beat DuckDB's hash aggregate"
		            : std::string("GROUP BY: cost: more than one group a zone per ") + std::to_string(kRowsPerGroup) +
		                  " rows, and the zones are not sorted by the key");
		return;
	}
	if (!TakeFilters(context, chain, *bind, true)) {
		return;
	}
	FilterReach reach;
	if (SettingEnabled(context, Setting::PUSHDOWN_COST_BASED) && FewRowsPassStraddling(*chain.scan, bind->files, *bind, reach)) {
		decline("cost: the filters straddle the zones of " + std::to_string(reach.straddling) + " rows and an estimated " +
		        std::to_string(static_cast<uint64_t>(reach.kept + 0.5)) +
		        " of them pass, which DuckDB's filtered scan reads fewer values for");
		return;
	}
	bind->fields = chain.scan->fields;
	bind->field_types = chain.scan->types;
	if (!residual_at.empty()) {
		partial = PushPart(binder, agg, chain, std::move(bind), pushed_at, residual_at, op, rebind) || partial;
		return;
	}

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

void Visit(ClientContext &context, Binder &binder, const RulesTable &rules, unique_ptr<LogicalOperator> &op,
           vector<ReplacementBinding> &rebind, bool &partial) {
	for (auto &child : op->children) {
		Visit(context, binder, rules, child, rebind, partial);
	}
	if (op->type == LogicalOperatorType::LOGICAL_AGGREGATE_AND_GROUP_BY) {
		TryPush(context, binder, rules, op, rebind, partial);
	}
}

void Optimize(OptimizerExtensionInput &input, unique_ptr<LogicalOperator> &plan) {
	if (!input.info) {
		return;
	}
	if (SettingEnabled(input.context, Setting::PUSHDOWN)) {
		auto &rules = static_cast<const RulesTable &>(*input.info);
		vector<ReplacementBinding> rebind;
		bool partial = false;
		Visit(input.context, input.optimizer.binder, rules, plan, rebind, partial);
		if (!rebind.empty()) {
			ColumnBindingReplacer replacer;
			replacer.replacement_bindings = std::move(rebind);
			replacer.VisitOperator(*plan);
			AbsorbGroupedOrder(input.context, plan);
			if (partial) {
				// The plain scan under a partly pushed SELECT list still reads the columns only
				// the pushed aggregates used: DuckDB's own pass prunes them.
				compat::RemoveUnusedColumnsFrom(input.optimizer, *plan);
			}
		}
	}
	// What was not pushed still sums floats exactly, as the pushed plans do.
	UseExactFloatSums(input.context, plan);
}

} // namespace

OptimizerExtension GetPushdownOptimizer(shared_ptr<RulesTable> rules) {
	OptimizerExtension ext;
	ext.optimize_function = Optimize;
	ext.optimizer_info = std::move(rules);
	return ext;
}

} // namespace vortex
