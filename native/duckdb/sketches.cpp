#include "sketches.hpp"

#include "duckdb_compat.hpp"
#include "column_emit.hpp"
#include "type_mapping.hpp"
#include "duckdb/main/extension_manager.hpp"

#include <mutex>

namespace vortex {

using namespace duckdb;

bool SketchedType(const LogicalType &type) {
	switch (type.id()) {
	case LogicalTypeId::STRUCT:
	case LogicalTypeId::LIST:
	case LogicalTypeId::MAP:
	case LogicalTypeId::ARRAY:
	case LogicalTypeId::UNION:
	case LogicalTypeId::ENUM:
		return false;
	default:
		return true;
	}
}

namespace {

//! A literal as a value of `type`, or false. The session's casts to the time zone types (ICU's)
//! read a literal in the session's TimeZone, which made the fingerprint, and so a file's sketches
//! and distinct counts, depend on the zone the file was written in. Here they read it as UTC: a
//! TIMESTAMPTZ by DuckDB's own cast (which does), a TIMETZ by the session's with its offset reset
//! (ICU keeps the local time and adds the zone's offset). Both agree with the session's casts in
//! UTC, so files written there keep their sketches.
bool LiteralOf(ClientContext &context, const char *literal, const LogicalType &type, Value &out) {
	string error;
	try {
		if (type.id() == LogicalTypeId::TIMESTAMP_TZ) {
			return Value(literal).DefaultTryCastAs(type, out, &error, true) && !out.IsNull();
		}
		if (!Value(literal).TryCastAs(context, type, out, &error, true) || out.IsNull()) {
			return false;
		}
		if (type.id() == LogicalTypeId::TIME_TZ) {
			out = Value::TIMETZ(dtime_tz_t(out.GetValueUnsafe<dtime_tz_t>().time(), 0));
		}
		return true;
	} catch (const InvalidInputException &) {
		return false; // not a value of the type: GEOMETRY's cast from text throws rather than fail
	}
}

uint64_t ComputeFingerprint(ClientContext &context, const LogicalType &type) {
	static const char *const kLiterals[] = {"0",          "1",          "-1",       "42",       "1234567",
	                                        "0.5",        "-7.25",      "1e300",    "true",     "1970-01-02",
	                                        "2024-02-29", "2024-02-29 13:37:00.123456", "12:34:56", "a",
	                                        "vortex and duckdb, a string longer than inlined", "1 day",
	                                        "00000000-0000-0000-0000-000000000001"};
	vector<Value> values;
	for (auto literal : kLiterals) {
		Value v;
		if (LiteralOf(context, literal, type, v)) {
			values.push_back(std::move(v));
		}
	}
	if (values.empty()) {
		return 0;
	}
	uint64_t fingerprint = 0x9e3779b97f4a7c15ULL ^ values.size();
	Vector vec(type, values.size());
	for (idx_t i = 0; i < values.size(); i++) {
		vec.SetValue(i, values[i]);
	}
	Vector hashes(LogicalType::HASH, values.size());
	VectorOperations::Hash(vec, hashes, values.size());
	hashes.Flatten(values.size());
	auto data = FlatVector::GetData<hash_t>(hashes);
	for (idx_t i = 0; i < values.size(); i++) {
		fingerprint = (fingerprint ^ data[i]) * 0x100000001b3ULL + i;
	}
	return fingerprint == 0 ? 1 : fingerprint; // 0 means "no sketches" in the footer
}

//! Fingerprints computed once per type and database: DuckDB asks for a column's statistics
//! several times while planning, and the casts of the literals (most of which fail, with an
//! error message each) took a third of the planning of a TPC-DS query over .vtx views. A cast
//! can change only when an extension loads, so the count of extensions is part of the key.
class FingerprintCache : public compat::UnevictedCacheEntry<FingerprintCache> {
public:
	static string ObjectType() {
		return "vortex_hash_fingerprints";
	}

	uint64_t Get(ClientContext &context, const LogicalType &type) {
		const idx_t extensions = ExtensionManager::Get(context).GetExtensions().size();
		{
			std::lock_guard<std::mutex> guard(lock);
			for (auto &e : entries) {
				if (e.extensions == extensions && e.type == type) {
					return e.fingerprint;
				}
			}
		}
		const uint64_t fingerprint = ComputeFingerprint(context, type);
		std::lock_guard<std::mutex> guard(lock);
		if (entries.size() >= kMaxEntries) {
			entries.clear();
		}
		entries.push_back(Entry {type, extensions, fingerprint});
		return fingerprint;
	}

private:
	static constexpr size_t kMaxEntries = 256;
	struct Entry {
		LogicalType type;
		idx_t extensions;
		uint64_t fingerprint;
	};
	std::mutex lock;
	vector<Entry> entries;
};

} // namespace

uint64_t HashFingerprint(ClientContext &context, const LogicalType &type) {
	return ObjectCache::GetObjectCache(context).GetOrCreate<FingerprintCache>("vortex:hash_fingerprints")->Get(context,
	                                                                                                        type);
}

namespace {

//! HyperLogLog::InsertElement, bit for bit, with the compiler's trailing-zero count: DuckDB's
//! portable CountZeros copies a 512-byte table onto the stack on every call, which took a third
//! of a COPY's time. (h has bit Q set, so it is never 0.)
inline void InsertHash(HyperLogLog &registers, hash_t h) {
	const idx_t i = h & (HyperLogLog::M - 1);
	h = (h >> HyperLogLog::P) | (hash_t(1) << HyperLogLog::Q);
	registers.Update(i, static_cast<uint8_t>(__builtin_ctzll(h) + 1));
}

} // namespace

void SketchVector(Vector &values, idx_t offset, idx_t count, const uint8_t *selected, HyperLogLog &registers) {
	const idx_t total = offset + count;
	UnifiedVectorFormat format;
	values.ToUnifiedFormat(total, format);
	// Only the rows that count are hashed, and picked without a branch: a filter keeping half the
	// rows at random left half the hashing wasted and a mispredicted branch every other row.
	SelectionVector rows(total);
	idx_t n = 0;
	for (idx_t i = offset; i < total; i++) {
		rows.set_index(n, i);
		n += (!selected || selected[i]) && format.validity.RowIsValid(format.sel->get_index(i));
	}
	if (n == 0) {
		return;
	}
	Vector hashes(LogicalType::HASH, total);
	if (n == total) {
		VectorOperations::Hash(values, hashes, total);
	} else {
		VectorOperations::Hash(values, hashes, rows, n);
	}
	hashes.Flatten(total);
	auto data = FlatVector::GetData<hash_t>(hashes);
	for (idx_t k = 0; k < n; k++) {
		InsertHash(registers, data[rows.get_index(k)]);
	}
}

void SketchDecoded(const vtx::DecodedColumn &chunk, const vtx::ColumnType &type, const uint8_t *selected,
                   HyperLogLog &registers, uint64_t begin, uint64_t end) {
	end = MinValue<uint64_t>(end, chunk.count);
	if (chunk.all_null || begin >= end) {
		return;
	}
	const auto logical = ToLogicalType(type);
	std::shared_ptr<vtx::DecodedColumn> view(std::shared_ptr<vtx::DecodedColumn>(), const_cast<vtx::DecodedColumn *>(&chunk));
	std::vector<uint8_t> rows(STANDARD_VECTOR_SIZE);
	// Vectors start at multiples of 64 rows (EmitColumn): rows outside [begin, end) are masked.
	for (uint64_t offset = begin / 64 * 64; offset < end; offset += STANDARD_VECTOR_SIZE) {
		const idx_t n = MinValue<idx_t>(STANDARD_VECTOR_SIZE, chunk.count - offset);
		for (idx_t i = 0; i < n; i++) {
			const uint64_t row = offset + i;
			rows[i] = row >= begin && row < end && (!selected || selected[row]);
		}
		Vector vec(logical, n);
		EmitColumn(chunk, view, offset, n, type, vec);
		SketchVector(vec, 0, n, rows.data(), registers);
	}
}

void SketchInput(const LogicalType &type, const vtx::ColumnInput &in, HyperLogLog &registers) {
	const auto width = in.type.ByteWidth();
	Vector hashes(LogicalType::HASH, STANDARD_VECTOR_SIZE);
	Vector strings(type, width ? 0 : STANDARD_VECTOR_SIZE);
	for (uint64_t offset = 0; offset < in.count; offset += STANDARD_VECTOR_SIZE) {
		const idx_t n = MinValue<idx_t>(STANDARD_VECTOR_SIZE, in.count - offset);
		if (width) {
			// Rows that are NULL hold some bytes and are hashed, but not counted below.
			Vector values(type, const_cast<data_ptr_t>(in.fixed + offset * width));
			VectorOperations::Hash(values, hashes, n);
		} else {
			auto data = FlatVector::GetData<string_t>(strings);
			for (idx_t i = 0; i < n; i++) {
				auto &s = in.strings[offset + i];
				data[i] = string_t(s.ptr, s.len);
			}
			VectorOperations::Hash(strings, hashes, n);
		}
		auto h = FlatVector::GetData<hash_t>(hashes);
		for (idx_t i = 0; i < n; i++) {
			if (in.IsValid(offset + i)) {
				InsertHash(registers, h[i]);
			}
		}
	}
}

Sketch SketchOfDistinct(const LogicalType &type, const vtx::ColumnType &column_type,
                        const std::vector<std::string> &distinct) {
	if (const auto width = column_type.ByteWidth()) {
		std::vector<uint8_t> fixed(distinct.size() * width);
		for (size_t i = 0; i < distinct.size(); i++) {
			D_ASSERT(distinct[i].size() == width);
			std::memcpy(fixed.data() + i * width, distinct[i].data(), width);
		}
		return SketchOfValues(type, column_type, fixed);
	}
	std::vector<vtx::StringRef> refs;
	for (auto &d : distinct) {
		refs.push_back(vtx::StringRef {d.data(), static_cast<uint32_t>(d.size())});
	}
	vtx::ColumnInput in;
	in.type = column_type;
	in.count = distinct.size();
	in.strings = refs.data();
	HyperLogLog registers;
	SketchInput(type, in, registers);
	return RegistersOf(registers);
}

Sketch SketchOfValues(const LogicalType &type, const vtx::ColumnType &column_type, const std::vector<uint8_t> &values) {
	vtx::ColumnInput in;
	in.type = column_type;
	const auto width = column_type.ByteWidth();
	D_ASSERT(width && values.size() % width == 0);
	in.count = values.size() / width;
	in.fixed = values.data();
	HyperLogLog registers;
	SketchInput(type, in, registers);
	return RegistersOf(registers);
}

Sketch RegistersOf(const HyperLogLog &hll) {
	Sketch out {};
	for (idx_t i = 0; i < HyperLogLog::M; i++) {
		out[i] = hll.GetRegister(i);
	}
	return out;
}

void MergeRegisters(HyperLogLog &hll, const Sketch &registers) {
	for (idx_t i = 0; i < HyperLogLog::M; i++) {
		hll.Update(i, registers[i]);
	}
}

} // namespace vortex
