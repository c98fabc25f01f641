// libFuzzer target for the .vtx reader (native/format) and the aggregate kernels over what it
// returns (native/compute). No DuckDB: only DuckDB's bundled zstd/lz4 symbols are linked, from
// libduckdb.so. Built and run by scripts/fuzz.sh (clang, -fsanitize=fuzzer,address,undefined).
//
// Every input is tried twice:
//   1. verbatim, so the checks a real reader relies on (magic, lengths, checksums) are fuzzed;
//   2. with every checksum recomputed, so that mutations reach the footer parser, the
//      decompressors and the decoders instead of stopping at a checksum mismatch.
// Anything malformed must surface as vtx::FormatError. Any other exception, a sanitizer
// report, or a broken invariant of a decoded chunk (asserted below) is a finding.

#include "../native/compute/aggregate_state.hpp"
#include "../native/compute/kernels.hpp"
#include "../native/compute/zone_mask.hpp"
#include "../native/format/file/checksum.hpp"
#include "../native/format/domain.hpp"
#include "../native/format/encodings/encoding.hpp"
#include "../native/format/file/reader.hpp"
#include "../native/format/stats/stats_builder.hpp"

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <exception>
#include <vector>

namespace {

// Decoding materialises a zone (rows × width bytes). The format admits zones of up to
// kMaxZoneRows rows, so a tiny constant-encoded segment can legitimately ask for gigabytes;
// that is a documented resource limit, not memory unsafety. The fuzzer stays below it so
// that executions stay fast and libFuzzer's malloc limit is not what it reports.
constexpr uint64_t kMaxDecodeBytes = uint64_t(64) << 20;

[[noreturn]] void Fail(const char *what) {
	std::fprintf(stderr, "fuzz invariant violated: %s\n", what);
	std::abort();
}

#define CHECK(cond)                                                                                                    \
	do {                                                                                                               \
		if (!(cond)) {                                                                                                 \
			Fail(#cond);                                                                                               \
		}                                                                                                              \
	} while (0)

class MemorySource : public vtx::InputSource {
public:
	explicit MemorySource(const std::vector<uint8_t> &bytes) : bytes(bytes) {
	}
	uint64_t Size() override {
		return bytes.size();
	}
	void ReadAt(uint64_t offset, uint8_t *dst, size_t n) override {
		// As the DuckDB FileSource does: a read outside the file is a format error.
		if (offset > bytes.size() || n > bytes.size() - offset) {
			throw vtx::FormatError("read past the end of the file");
		}
		if (n) {
			std::memcpy(dst, bytes.data() + offset, n);
		}
	}

private:
	const std::vector<uint8_t> &bytes;
};

// Touches every byte a decoded chunk exposes, so ASan sees any pointer out of its buffer.
uint64_t Touch(const vtx::ColumnType &type, const vtx::DecodedColumn &col) {
	uint64_t h = 0;
	const uint64_t fixed_bytes = type.IsString() ? 0 : col.count * type.ByteWidth();
	for (uint64_t i = 0; i < fixed_bytes; i++) {
		h = h * 31 + col.Fixed()[i];
	}
	if (col.values && fixed_bytes) {
		// Plain values used in place must lie inside the chunk's own buffer, aligned.
		CHECK(col.values >= col.buffer.data() && col.values + fixed_bytes <= col.buffer.data() + col.buffer.size());
		CHECK(reinterpret_cast<uintptr_t>(col.values) % std::min<uint32_t>(type.ByteWidth(), 8) == 0);
	}
	for (uint64_t i = 0; type.IsString() && i < col.count; i++) {
		auto &s = col.StringAt(i);
		for (uint32_t k = 0; k < s.len; k++) {
			h = h * 31 + static_cast<uint8_t>(s.ptr[k]);
		}
		if (s.len && !col.all_null) {
			// Strings must point into the chunk's own buffer (it outlives the segment bytes).
			auto base = reinterpret_cast<const char *>(col.buffer.data());
			CHECK(s.ptr >= base && s.ptr + s.len <= base + col.buffer.size());
		}
	}
	for (uint64_t i = 0; i < col.count; i++) {
		h += col.IsValid(i);
	}
	(void)type;
	return h;
}

void CheckDecoded(const vtx::ColumnType &type, uint64_t rows, const vtx::DecodedColumn &col) {
	CHECK(col.count == rows);
	CHECK(!(col.all_valid && col.all_null) || rows == 0);
	if (!col.all_valid) {
		CHECK(col.validity.size() >= (rows + 63) / 64);
	}
	if (type.IsString()) {
		CHECK(col.codes.empty() ? col.strings.size() == rows : col.codes.size() == rows);
		for (uint64_t i = 0; i < col.codes.size(); i++) {
			CHECK(col.codes[i] < col.dictionary.size());
		}
	} else {
		CHECK(col.values || col.fixed.size() == rows * type.ByteWidth());
		// Only values DuckDB itself could hold get through (see domain.hpp).
		for (uint64_t i = 0; vtx::HasRestrictedDomain(type) && i < rows; i++) {
			auto p = reinterpret_cast<const char *>(col.Fixed() + i * type.ByteWidth());
			CHECK(vtx::InDomain(type, std::string(p, type.ByteWidth())));
		}
	}
}

// Re-encodes a decoded chunk and decodes it again: the writer must accept whatever the reader
// produced and give back the same values (an encoder/decoder asymmetry is a wrong answer).
void RoundTrip(const vtx::ColumnType &type, const vtx::DecodedColumn &col) {
	std::vector<uint8_t> valid;
	vtx::ColumnInput in;
	in.type = type;
	in.count = col.count;
	if (!col.all_valid) {
		valid.resize(col.count);
		for (uint64_t i = 0; i < col.count; i++) {
			valid[i] = col.IsValid(i);
		}
		in.valid = valid.data();
	}
	in.fixed = col.Fixed();
	vtx::StringRefs strings;
	in.strings = col.Strings(strings);
	vtx::ByteWriter w;
	vtx::EncodeChunk(in, w);
	vtx::DecodedColumn again;
	vtx::DecodeChunk(type, col.count, std::move(w.data), again);
	CHECK(again.count == col.count);
	const auto width = type.ByteWidth();
	for (uint64_t i = 0; i < col.count; i++) {
		CHECK(again.IsValid(i) == col.IsValid(i));
		if (!col.IsValid(i)) {
			continue;
		}
		if (width) {
			CHECK(std::memcmp(again.Fixed() + i * width, col.Fixed() + i * width, width) == 0);
		} else {
			const auto &a = again.StringAt(i);
			const auto &b = col.StringAt(i);
			CHECK(a.len == b.len && (a.len == 0 || std::memcmp(a.ptr, b.ptr, a.len) == 0));
		}
	}
}

void Evaluate(const vtx::compute::AggregateState &s) {
	using vtx::compute::Kernel;
	for (auto k : {Kernel::COUNT_ROWS, Kernel::COUNT, Kernel::SUM, Kernel::MEAN, Kernel::MIN, Kernel::MAX}) {
		for (bool skip : {false, true}) {
			vtx::compute::KernelOptions o;
			o.skip_nans = skip;
			auto r = vtx::compute::Evaluate(k, s, o);
			(void)r;
		}
	}
}

//! A conjunction of bounds (integers evaluate it in one pass, strict bounds made inclusive) selects
//! the rows its bounds select one by one, for bounds at a row's value and at the type's ends.
void CheckBounds(const vtx::ColumnType &type, const vtx::DecodedColumn &col, const std::string &value) {
	using vtx::compute::CompareOp;
	using vtx::compute::Predicate;
	// The ends of the unsigned (all 0 bits, all 1 bits) and of the signed (little-endian) domain.
	const size_t w = type.ByteWidth();
	std::string zeros(w, '\0'), ones(w, '\xff'), smin = zeros, smax = ones;
	if (w > 0) {
		smin[w - 1] = '\x80';
		smax[w - 1] = '\x7f';
	}
	const CompareOp lower[] = {CompareOp::GE, CompareOp::GT};
	const CompareOp upper[] = {CompareOp::LE, CompareOp::LT};
	for (auto &a : {value, zeros, smin}) {
		for (auto &b : {value, ones, smax}) {
			for (auto lo : lower) {
				for (auto hi : upper) {
					Predicate both;
					both.kind = Predicate::Kind::AND;
					both.children = {Predicate::Compare(lo, a), Predicate::Compare(hi, b)};
					vtx::compute::ZoneMask fused, apart;
					fused.Begin(col.count);
					fused.And(both, type, col);
					apart.Begin(col.count);
					apart.And(Predicate::Compare(lo, a), type, col);
					apart.And(Predicate::Compare(hi, b), type, col);
					CHECK(std::memcmp(fused.Rows(), apart.Rows(), col.count) == 0);
				}
			}
		}
	}
}

//! Filters evaluated on a decoded zone, as a scan builds its mask: IS [NOT] NULL must agree with
//! validity, and a row must equal its own value. Also the mask of a zone given no filter.
void CheckMask(const vtx::ColumnType &type, const vtx::DecodedColumn &col) {
	using vtx::compute::Predicate;
	vtx::compute::ZoneMask mask;
	mask.Begin(col.count);
	const uint8_t *all = mask.Rows();
	for (uint64_t i = 0; i < col.count; i++) {
		CHECK(all[i] == 1);
	}
	if (!vtx::compute::PredicateSupported(type) || col.count == 0) {
		return;
	}
	Predicate not_null, is_null;
	not_null.kind = Predicate::Kind::IS_NOT_NULL;
	is_null.kind = Predicate::Kind::IS_NULL;
	mask.Begin(col.count);
	mask.And(not_null, type, col);
	const uint8_t *rows = mask.Rows();
	for (uint64_t i = 0; i < col.count; i++) {
		CHECK(rows[i] == (col.IsValid(i) ? 1 : 0));
	}
	// The last valid row's own value: EQ must select it (NaN equals NaN, -0.0 equals 0.0).
	uint64_t last = col.count;
	while (last > 0 && !col.IsValid(last - 1)) {
		last--;
	}
	if (last > 0) {
		const uint64_t r = last - 1;
		std::string value;
		if (type.IsString()) {
			auto &s = col.StringAt(r);
			value.assign(s.ptr, s.len);
		} else {
			value.assign(reinterpret_cast<const char *>(col.Fixed() + r * type.ByteWidth()), type.ByteWidth());
		}
		mask.And(Predicate::Compare(vtx::compute::CompareOp::EQ, value), type, col);
		CHECK(mask.Rows()[r] == 1);
		CheckBounds(type, col, value);
	}
	mask.And(is_null, type, col);
	for (uint64_t i = 0; i < col.count; i++) {
		CHECK(mask.Rows()[i] == 0);
	}
}

//! Every stream of a decoded column, nested ones included: its own with the storage type, and
//! its children's with theirs (whose value counts the footer or the lengths gave).
void CheckStreams(const vtx::ColumnType &type, const vtx::DecodedColumn &col) {
	auto storage = type.Storage();
	CheckDecoded(storage, col.count, col);
	Touch(storage, col);
	RoundTrip(storage, col);
	auto &children = type.Children();
	if (children.empty()) {
		return;
	}
	CHECK(col.children.size() == children.size());
	if (type.id == vtx::TypeId::LIST || type.id == vtx::TypeId::MAP) {
		CHECK(col.list_offsets.size() == col.count + 1);
		CHECK(col.list_offsets.back() == col.children[0].count);
	}
	for (size_t i = 0; i < children.size(); i++) {
		CheckStreams(children[i].type, col.children[i]);
	}
}

//! What decoding a column's streams may allocate, at most: their raw sizes and decoded values.
uint64_t DecodeBytes(const vtx::ColumnType &type, const vtx::ChunkMeta &c) {
	uint64_t n = c.raw_size + c.stats.rows * 16 + 64;
	auto &children = type.Children();
	for (size_t i = 0; i < children.size() && i < c.children.size(); i++) {
		n += DecodeBytes(children[i].type, c.children[i]);
	}
	return n;
}

void FixChecksums(const std::vector<uint8_t> &bytes, vtx::ChunkMeta &c) {
	c.crc = vtx::Crc32c(bytes.data() + c.offset, c.stored_size);
	for (auto &child : c.children) {
		FixChecksums(bytes, child);
	}
}

void Run(std::vector<uint8_t> bytes, bool fix_checksums) {
	using namespace vtx;
	if (fix_checksums) {
		if (bytes.size() < kHeaderSize + kTrailerSize) {
			return;
		}
		uint32_t footer_len;
		std::memcpy(&footer_len, bytes.data() + bytes.size() - kTrailerSize, 4);
		if (footer_len > bytes.size() - kHeaderSize - kTrailerSize) {
			return;
		}
		uint32_t crc = Crc32c(bytes.data() + bytes.size() - kTrailerSize - footer_len, footer_len);
		std::memcpy(bytes.data() + bytes.size() - kTrailerSize + 4, &crc, 4);
	}
	MemorySource source(bytes);
	FileMetadata meta;
	try {
		meta = ReadMetadata(source);
	} catch (FormatError &) {
		return;
	}
	// What a valid footer promises to every consumer.
	CHECK(!meta.fields.empty());
	CHECK(meta.file_size == bytes.size());
	uint64_t rows = 0;
	for (auto &z : meta.zones) {
		CHECK(z.first_row == rows);
		CHECK(z.chunks.size() == meta.fields.size());
		rows += z.rows;
		for (auto &c : z.chunks) {
			CHECK(c.offset >= kHeaderSize && c.offset + c.stored_size <= bytes.size() - kTrailerSize - meta.footer_size);
			CHECK(c.stats.rows == z.rows && c.stats.nulls <= c.stats.rows);
		}
	}
	CHECK(rows == meta.total_rows);
	if (fix_checksums) {
		for (auto &z : meta.zones) {
			for (auto &c : z.chunks) {
				FixChecksums(bytes, c);
			}
		}
	}
	for (size_t f = 0; f < meta.fields.size(); f++) {
		auto &type = meta.fields[f].type;
		compute::AggregateState from_stats(type), from_data(type);
		for (size_t z = 0; z < meta.zones.size(); z++) {
			auto &stats = meta.zones[z].chunks[f].stats;
			compute::AggregateState::StatsSuffice(stats, true);
			from_stats.AddStats(stats);
			const uint64_t zone_rows = meta.zones[z].rows;
			if (zone_rows * (type.ByteWidth() ? type.ByteWidth() : sizeof(StringRef)) > kMaxDecodeBytes ||
			    DecodeBytes(type, meta.zones[z].chunks[f]) > kMaxDecodeBytes) {
				continue;
			}
			DecodedColumn col;
			try {
				auto body = ReadSegment(source, meta.zones[z].chunks[f]);
				PeekEncoding(type, zone_rows, body);
				ReadChunk(source, meta, z, f, col);
			} catch (FormatError &) {
				continue;
			}
			CHECK(col.count == zone_rows);
			CheckStreams(type, col);
			if (type.Children().empty()) {
				CheckMask(type, col);
			}
			from_data.AddDecoded(col);
			if (!type.IsString() && type.Children().empty() && type.id != TypeId::ENUM && zone_rows > 0) {
				// Given a range (a filter's run of rows), the reader decodes those rows exactly as a
				// whole decode does; it cannot fail where the whole decode did not.
				// Ranges inside the zone, to its end and from its start (each leaves rows undecoded).
				const RowRange ranges[] = {{zone_rows / 3, zone_rows - zone_rows / 4},
				                           {zone_rows / 2, zone_rows},
				                           {0, (zone_rows + 1) / 2}};
				for (auto &range : ranges) {
					DecodedColumn part;
					ReadChunk(source, meta, z, f, part, nullptr, &range);
					CHECK(part.count == col.count);
					CHECK(part.decoded_begin <= range.begin && part.decoded_end >= range.end);
					const auto w = type.ByteWidth();
					CHECK(std::memcmp(part.Fixed() + range.begin * w, col.Fixed() + range.begin * w,
					                  (range.end - range.begin) * w) == 0);
				}
			}
		}
		Evaluate(from_stats);
		Evaluate(from_data);
	}
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	std::vector<uint8_t> bytes(data, data + size);
	try {
		Run(bytes, false);
		Run(std::move(bytes), true);
	} catch (vtx::FormatError &e) {
		// Only expected from inside Run's own try blocks; one escaping means a code path that
		// trusted the file before checking it.
		std::fprintf(stderr, "FormatError escaped: %s\n", e.what());
		std::abort();
	} catch (std::exception &e) {
		std::fprintf(stderr, "unexpected exception (not a FormatError): %s\n", e.what());
		std::abort();
	}
	return 0;
}
