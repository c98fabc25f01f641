#include "bucket_keys.hpp"

#include "../expr/calendar_kernels.hpp"
#include "../column_emit.hpp"
#include "../type_mapping.hpp"
#include "duckdb/planner/expression/bound_cast_expression.hpp"
#include "duckdb/planner/expression/bound_constant_expression.hpp"
#include "duckdb/planner/expression/bound_function_expression.hpp"
#include "duckdb/planner/expression/bound_reference_expression.hpp"

#include <cstring>

namespace vortex {

using namespace duckdb;

unique_ptr<Expression> BucketOverInput(const Expression &key, const Expression &input) {
	auto copy = key.Copy();
	auto reference = make_uniq<BoundReferenceExpression>(input.return_type, 0);
	if (copy->GetExpressionClass() == ExpressionClass::BOUND_CAST) {
		copy->Cast<BoundCastExpression>().child = std::move(reference);
		return copy;
	}
	auto &fn = copy->Cast<BoundFunctionExpression>();
	auto &original = key.Cast<BoundFunctionExpression>();
	for (idx_t i = 0; i < fn.children.size(); i++) {
		if (original.children[i].get() == &input) {
			fn.children[i] = std::move(reference);
			break;
		}
	}
	return copy;
}

namespace {

//! The least distance between two different results, in microseconds (1 where unknown).
int64_t GranularityMicros(const Expression &bucket) {
	constexpr int64_t kDay = Interval::MICROS_PER_DAY;
	if (bucket.GetExpressionClass() == ExpressionClass::BOUND_CAST) {
		switch (bucket.Cast<BoundCastExpression>().child->return_type.id()) {
		case LogicalTypeId::DATE: return kDay;
		case LogicalTypeId::TIMESTAMP_SEC: return Interval::MICROS_PER_SEC;
		case LogicalTypeId::TIMESTAMP_MS: return Interval::MICROS_PER_MSEC;
		default: return 1;
		}
	}
	if (bucket.GetExpressionClass() != ExpressionClass::BOUND_FUNCTION) {
		return 1;
	}
	auto &fn = bucket.Cast<BoundFunctionExpression>();
	if (fn.function.name == "time_bucket" && !fn.children.empty() && fn.children[0]->GetExpressionClass() == ExpressionClass::BOUND_CONSTANT) {
		auto width = IntervalValue::Get(fn.children[0]->Cast<BoundConstantExpression>().value);
		// A month is at least 28 days.
		const int64_t micros = width.months * 28 * kDay + width.days * kDay + width.micros;
		return micros > 0 ? micros : 1;
	}
	DatePartSpecifier part;
	const Expression *input = nullptr;
	if (!DateTruncOf(bucket, part, input)) {
		return 1;
	}
	// The shortest unit of each part: a month is at least 28 days, a year 365.
	switch (part) {
	case DatePartSpecifier::MILLISECONDS: return Interval::MICROS_PER_MSEC;
	case DatePartSpecifier::SECOND: return Interval::MICROS_PER_SEC;
	case DatePartSpecifier::MINUTE: return Interval::MICROS_PER_MINUTE;
	case DatePartSpecifier::HOUR: return Interval::MICROS_PER_HOUR;
	case DatePartSpecifier::DAY: return kDay;
	case DatePartSpecifier::WEEK: return 7 * kDay;
	case DatePartSpecifier::MONTH: return 28 * kDay;
	case DatePartSpecifier::QUARTER: return 89 * kDay;
	case DatePartSpecifier::YEAR: return 365 * kDay;
	case DatePartSpecifier::DECADE: return 3652 * kDay;
	case DatePartSpecifier::CENTURY: return 36524 * kDay;
	case DatePartSpecifier::MILLENNIUM: return 365242 * kDay;
	default: return 1;
	}
}

} // namespace

int64_t BucketGranularity(const Expression &bucket) {
	switch (bucket.return_type.id()) {
	case LogicalTypeId::TIMESTAMP:
	case LogicalTypeId::TIMESTAMP_TZ:
		return GranularityMicros(bucket);
	case LogicalTypeId::DATE:
		return MaxValue<int64_t>(1, GranularityMicros(bucket) / Interval::MICROS_PER_DAY);
	default:
		return 1; // integers
	}
}

BucketEvaluator::BucketEvaluator(ClientContext &context, const Expression &bucket, vtx::ColumnType input_type,
                                 bool monotone)
    : context(context), bucket(bucket), input_type(input_type), input_logical(ToLogicalType(input_type)),
      executor(context, bucket), ends(context, bucket, input_logical), monotone(monotone) {
	const Expression *input = nullptr;
	if (auto field = CalendarFieldOf(bucket, input)) {
		truncation = TruncationOf(context, field->unit, input->Copy());
		if (truncation) {
			truncation_executor = make_uniq<ExpressionExecutor>(context, *truncation);
			truncation_ends = make_uniq<ValueEvaluator>(context, *truncation, input_logical);
		}
	}
	vtx::compute::TimestampKey key;
	if (CalendarKernelOf(bucket, key, kernel_of_dates) && input_type.ByteWidth() == (kernel_of_dates ? 4 : 8) &&
	    vtx::compute::TimestampKeyWidth(key) == GetTypeIdSize(bucket.return_type.InternalType())) {
		kernel = std::make_unique<vtx::compute::CalendarKeys>(key);
	}
}

bool BucketEvaluator::OneKey(const Value &min, const Value &max) {
	if (min == max) {
		return true;
	}
	// Compared only when neither is NULL: DuckDB's Value comparison raises an internal error (which
	// invalidates the database) on NULL, and a NULL end (year('-infinity')) proves no one key.
	auto same = [](const Value &a, const Value &b) {
		return !a.IsNull() && !b.IsNull() && a == b;
	};
	if (monotone) {
		Value a, b;
		return Apply(min, a) && Apply(max, b) && same(a, b);
	}
	// A truncation that fails is NULL here (Truncate): no proof.
	return truncation_executor && same(Truncate(min), Truncate(max));
}

// The truncation is only a proof about the field, and can fail where the field cannot: DuckDB 1.5
// types date_trunc('month', ts) a TIMESTAMP, out of range before the first timestamp's month.
Value BucketEvaluator::Truncate(const Value &input) {
	Value out;
	if (!truncation_ends || !truncation_ends->At(input, out)) {
		return Value();
	}
	return out;
}

namespace {

//! Rows between two evaluated samples of a sorted run.
constexpr idx_t kSampleStride = 64;

template <class T>
bool NonDecreasing(const uint8_t *data, uint64_t begin, uint64_t end) {
	T prev;
	std::memcpy(&prev, data + begin * sizeof(T), sizeof(T));
	for (uint64_t i = begin + 1; i < end; i++) {
		T v;
		std::memcpy(&v, data + i * sizeof(T), sizeof(T));
		if (v < prev) {
			return false;
		}
		prev = v;
	}
	return true;
}

//! Whether rows [begin, end) of an integer-stored column (timestamps, dates, integers) are all
//! valid and in ascending order.
bool SortedRun(const vtx::DecodedColumn &in, const vtx::ColumnType &type, uint64_t begin, uint64_t end) {
	if (in.all_null || end - begin < 2 * kSampleStride) {
		return false;
	}
	if (!in.all_valid) {
		for (uint64_t i = begin; i < end; i++) {
			if (!in.IsValid(i)) {
				return false;
			}
		}
	}
	const uint8_t *data = in.Fixed();
	const bool is_signed = type.Kind() == vtx::PhysicalKind::SIGNED;
	if (!is_signed && type.Kind() != vtx::PhysicalKind::UNSIGNED) {
		return false;
	}
	switch (type.ByteWidth()) {
	case 1: return is_signed ? NonDecreasing<int8_t>(data, begin, end) : NonDecreasing<uint8_t>(data, begin, end);
	case 2: return is_signed ? NonDecreasing<int16_t>(data, begin, end) : NonDecreasing<uint16_t>(data, begin, end);
	case 4: return is_signed ? NonDecreasing<int32_t>(data, begin, end) : NonDecreasing<uint32_t>(data, begin, end);
	case 8: return is_signed ? NonDecreasing<int64_t>(data, begin, end) : NonDecreasing<uint64_t>(data, begin, end);
	default: return false;
	}
}

//! Marks rows [begin, end) valid in an LSB-first bitmap: all of them, or (with `source`, a bitmap
//! of the same rows) those valid there. A word at a time.
void SetValid(std::vector<uint64_t> &validity, uint64_t begin, uint64_t end, const uint64_t *source = nullptr) {
	for (uint64_t row = begin; row < end;) {
		const uint64_t bit = row & 63;
		const uint64_t span = std::min<uint64_t>(64 - bit, end - row);
		const uint64_t bits = (span == 64 ? ~uint64_t(0) : ((uint64_t(1) << span) - 1)) << bit;
		validity[row >> 6] |= source ? bits & source[row >> 6] : bits;
		row += span;
	}
}

} // namespace

bool BucketEvaluator::EvaluateRows(ExpressionExecutor &over, const Expression &e, const vtx::DecodedColumn &in,
                                   const std::vector<uint64_t> &rows, std::vector<uint8_t> &out) {
	const idx_t width = GetTypeIdSize(e.return_type.InternalType());
	out.resize(rows.size() * width);
	// SortedRun admits integer-stored columns only, whose storage is DuckDB's own: the values are
	// copied as they are into a vector of the input type, up to a vector's worth per call.
	const idx_t in_width = input_type.ByteWidth();
	DataChunk picked;
	picked.Initialize(Allocator::Get(context), {input_logical});
	for (idx_t start = 0; start < rows.size(); start += STANDARD_VECTOR_SIZE) {
		const idx_t n = MinValue<idx_t>(STANDARD_VECTOR_SIZE, rows.size() - start);
		picked.Reset();
		auto data = FlatVector::GetData(picked.data[0]);
		for (idx_t i = 0; i < n; i++) {
			std::memcpy(data + i * in_width, in.Fixed() + rows[start + i] * in_width, in_width);
		}
		picked.SetCardinality(n);
		Vector result(e.return_type);
		over.ExecuteExpression(picked, result);
		UnifiedVectorFormat format;
		result.ToUnifiedFormat(n, format);
		for (idx_t i = 0; i < n; i++) {
			const auto idx = format.sel->get_index(i);
			if (!format.validity.RowIsValid(idx)) {
				return false;
			}
			std::memcpy(out.data() + (start + i) * width, format.data + idx * width, width);
		}
	}
	return true;
}

// A monotone function over ascending values: where two samples give the same key, every row
// between them has it too (f(a) <= f(x) <= f(b) = f(a)). A calendar field is not monotone, but
// its truncation to the field's unit is, and rows with one truncation have one field value
// (`hour` within one `date_trunc('hour', ...)`): samples are compared by their truncation, and
// keyed by the field. Sorted columns (event times) then cost one evaluation per kSampleStride rows
// plus the rows around each change of key, in a few calls of DuckDB's executor for the range.
bool BucketEvaluator::SortedKeyRuns(const vtx::DecodedColumn &in, uint64_t begin, uint64_t end,
                                    uint64_t min_average_run, std::vector<uint64_t> &starts,
                                    std::vector<std::string> &keys) {
	starts.clear();
	keys.clear();
	if ((!monotone && !truncation_executor) || end > in.count || !SortedRun(in, input_type, begin, end)) {
		return false;
	}
	const uint64_t rows = end - begin;
	const idx_t width = GetTypeIdSize(bucket.return_type.InternalType());
	std::vector<uint64_t> samples, inner;
	std::vector<uint8_t> sample_keys, sample_units, inner_keys;
	for (uint64_t i = begin; i < end; i += kSampleStride) {
		samples.push_back(i);
	}
	if (samples.back() != end - 1) {
		samples.push_back(end - 1);
	}
	if (!EvaluateRows(executor, bucket, in, samples, sample_keys)) {
		return false;
	}
	// What two samples are compared by: their keys, or a calendar field's truncations. The
	// truncation can fail where the field does not (DuckDB 1.5's date_trunc('month', ...) of the
	// first timestamps); then there are no runs, and the rows are keyed one by one.
	const Expression &unit = monotone ? bucket : *truncation;
	if (!monotone) {
		try {
			if (!EvaluateRows(*truncation_executor, unit, in, samples, sample_units)) {
				return false;
			}
		} catch (std::exception &ex) {
			if (!NoAnswer(ex)) {
				throw;
			}
			return false;
		}
	}
	const std::vector<uint8_t> &compared = monotone ? sample_keys : sample_units;
	const idx_t compared_width = GetTypeIdSize(unit.return_type.InternalType());
	// Between two samples with one key (or unit) every row has it; elsewhere each row is evaluated.
	auto differ = [&](size_t j) {
		return std::memcmp(compared.data() + j * compared_width, compared.data() + (j + 1) * compared_width,
		                   compared_width) != 0;
	};
	// Each window whose ends differ starts at least one run: too many, and the runs would be too.
	// Where runs must average a window or more, keys changing in most windows are too many as
	// well: each such window may hold several (`minute` of a row every 7 s: one a window, 7 runs).
	const uint64_t max_runs = rows / std::max<uint64_t>(min_average_run, 1) + 1;
	const uint64_t max_changes = min_average_run >= kSampleStride ? (samples.size() - 1) / 2 + 1 : max_runs;
	uint64_t changes = 0;
	for (size_t j = 0; j + 1 < samples.size(); j++) {
		if (differ(j)) {
			if (++changes > max_changes) {
				return false;
			}
			for (uint64_t i = samples[j] + 1; i < samples[j + 1]; i++) {
				inner.push_back(i);
			}
		}
	}
	if (!EvaluateRows(executor, bucket, in, inner, inner_keys)) {
		return false;
	}
	auto add = [&](uint64_t row, const uint8_t *key) {
		if (keys.empty() || std::memcmp(keys.back().data(), key, width) != 0) {
			starts.push_back(row);
			keys.emplace_back(reinterpret_cast<const char *>(key), width);
		}
	};
	size_t q = 0;
	for (size_t j = 0; j < samples.size(); j++) {
		add(samples[j], sample_keys.data() + j * width);
		for (; q < inner.size() && (j + 1 == samples.size() || inner[q] < samples[j + 1]); q++) {
			add(inner[q], inner_keys.data() + q * width);
		}
	}
	return starts.size() <= max_runs;
}

bool BucketEvaluator::Apply(const Value &input, Value &out) {
	return ends.At(input, out);
}

bool BucketEvaluator::KernelKeys(const vtx::DecodedColumn &in, uint64_t offset, uint64_t n, const uint8_t *selected,
                                 vtx::DecodedColumn &out) {
	if (!kernel || in.all_null || in.deferred.encoding != 0 || in.decoded_begin > offset || in.decoded_end < offset + n) {
		return false;
	}
	const idx_t width = vtx::compute::TimestampKeyWidth(kernel->Key());
	auto keys = out.fixed.data() + offset * width;
	const bool keyed = kernel_of_dates ? kernel->OfDates(reinterpret_cast<const int32_t *>(in.Fixed()) + offset, n,
	                                                     reinterpret_cast<int64_t *>(keys))
	                                   : kernel->OfTimestamps(reinterpret_cast<const int64_t *>(in.Fixed()) + offset, n, keys);
	if (!keyed) {
		return false;
	}
	// NULL in, NULL out; rows a filter removed are NULL too, as the executor leaves them.
	if (!selected) {
		SetValid(out.validity, offset, offset + n, in.all_valid ? nullptr : in.validity.data());
		return true;
	}
	for (uint64_t row = offset; row < offset + n; row++) {
		if (in.IsValid(row) && (!selected || selected[row])) {
			out.validity[row >> 6] |= uint64_t(1) << (row & 63);
		}
	}
	return true;
}

void BucketEvaluator::ApplyColumn(const vtx::DecodedColumn &in, vtx::DecodedColumn &out, const uint8_t *selected) {
	const idx_t width = GetTypeIdSize(bucket.return_type.InternalType());
	const uint64_t rows = in.count;
	out = vtx::DecodedColumn();
	out.count = rows;
	out.fixed.resize(rows * width);
	out.validity.assign((rows + 63) / 64, 0);
	uint64_t valid = 0;
	DataChunk chunk;
	chunk.Initialize(Allocator::Get(context), {input_logical});
	SelectionVector sel(STANDARD_VECTOR_SIZE);
	// The column outlives this call (the caller holds it): no ownership is handed over.
	std::shared_ptr<vtx::DecodedColumn> view(std::shared_ptr<vtx::DecodedColumn>(), const_cast<vtx::DecodedColumn *>(&in));
	std::vector<uint64_t> starts;
	std::vector<std::string> keys;
	for (uint64_t offset = 0; offset < rows; offset += STANDARD_VECTOR_SIZE) {
		const idx_t n = MinValue<idx_t>(STANDARD_VECTOR_SIZE, rows - offset);
		if (KernelKeys(in, offset, n, selected, out)) {
			continue;
		}
		// A sorted, NULL-free vector (the others of its zone may hold NULLs): its keys as runs.
		if (!selected && SortedKeyRuns(in, offset, offset + n, 1, starts, keys)) {
			for (size_t r = 0; r < starts.size(); r++) {
				const uint64_t run_end = r + 1 < starts.size() ? starts[r + 1] : offset + n;
				for (uint64_t row = starts[r]; row < run_end; row++) {
					std::memcpy(out.fixed.data() + row * width, keys[r].data(), width);
				}
			}
			SetValid(out.validity, offset, offset + n);
			continue;
		}
		chunk.Reset();
		EmitColumn(in, view, offset, n, input_type, chunk.data[0]);
		chunk.SetCardinality(n);
		// Only the rows DuckDB would group: the function may raise an error on a row a filter removes.
		idx_t m = n;
		if (selected) {
			m = 0;
			for (idx_t i = 0; i < n; i++) {
				sel.set_index(m, i);
				m += selected[offset + i] != 0;
			}
			if (m == 0) {
				continue;
			}
			if (m < n) {
				chunk.Slice(sel, m);
			}
		}
		// A fresh vector each time: the executor writes into a flat vector, and the last result
		// may have become a constant or a dictionary over another batch.
		Vector result(bucket.return_type);
		executor.ExecuteExpression(chunk, result);
		if (m == n && result.GetVectorType() == VectorType::FLAT_VECTOR && FlatVector::Validity(result).AllValid()) {
			// Every row evaluated and none NULL (the usual case): one copy.
			std::memcpy(out.fixed.data() + offset * width, FlatVector::GetData(result), n * width);
			SetValid(out.validity, offset, offset + n);
			continue;
		}
		UnifiedVectorFormat format;
		result.ToUnifiedFormat(m, format);
		for (idx_t i = 0; i < m; i++) {
			const auto idx = format.sel->get_index(i);
			if (!format.validity.RowIsValid(idx)) {
				continue;
			}
			const uint64_t row = offset + (m < n ? sel.get_index(i) : i);
			std::memcpy(out.fixed.data() + row * width, format.data + idx * width, width);
			out.validity[row >> 6] |= uint64_t(1) << (row & 63);
		}
	}
	valid = 0;
	for (auto word : out.validity) {
		valid += static_cast<uint64_t>(__builtin_popcountll(word));
	}
	out.all_valid = valid == rows;
	out.all_null = rows > 0 && valid == 0;
	if (out.all_valid) {
		out.validity.clear();
	}
}

} // namespace vortex
