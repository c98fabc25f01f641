#include "zone_accumulator.hpp"

#include "../../format/encodings/bitpack.hpp"
#include "../../format/scratch.hpp"
#include "../sketches.hpp"
#include "../type_mapping.hpp"
#include "test_faults.hpp"

#include <cstring>
#include <mutex>

namespace vortex {

using namespace duckdb;

namespace {
using Column = ZoneAccumulator::Column;

// Column buffers outlive an accumulator: COPY fills a new one per batch or zone, on whichever
// thread feeds it (each query on one of Node's threads in turn), and fresh zone-sized buffers
// would cost a page fault per page every time (kept per thread, the first COPYs on each of
// Node's threads paid that: half again the time of a TPC-H orders COPY). Kept for every thread
// alike, they are released when no COPY or scan is in flight any more (format/scratch.hpp).
struct ColumnPool {
	std::mutex lock;
	std::vector<Column> columns;
};

size_t Held(const Column &col) {
	size_t n = col.valid.capacity() + col.fixed.capacity() + col.offsets.capacity() * sizeof(uint64_t) +
	           col.bytes.capacity() + col.refs.capacity() * sizeof(vtx::StringRef);
	for (auto &c : col.children) {
		n += Held(c);
	}
	return n;
}

ColumnPool &Pool();

size_t PooledBytes() {
	auto &pool = Pool();
	std::lock_guard<std::mutex> guard(pool.lock);
	size_t n = pool.columns.capacity() * sizeof(Column);
	for (auto &col : pool.columns) {
		n += Held(col);
	}
	return n;
}

size_t ReleasePooled() {
	std::vector<Column> released;
	{
		auto &pool = Pool();
		std::lock_guard<std::mutex> guard(pool.lock);
		released.swap(pool.columns);
	}
	size_t n = 0;
	for (auto &col : released) {
		n += Held(col);
	}
	return n; // freed here, outside the lock
}

ColumnPool &Pool() {
	// Leaked on purpose, as the other caches: a late thread may still return columns.
	static auto *pool = [] {
		auto p = new ColumnPool();
		vtx::RegisterSharedScratch({ReleasePooled, PooledBytes});
		return p;
	}();
	return *pool;
}


//! Appends rows `rows` (indices into the vector `f` describes) of a value of `type` to the
//! stream `col` and its children. `parent_valid` (or null: all valid) says which rows have a
//! non-NULL parent: a field of a NULL struct is stored NULL, so that the field's statistics are
//! exactly those of `s.a` as DuckDB computes it.
void AppendRows(Column &col, const vtx::ColumnType &type, const RecursiveUnifiedVectorFormat &f,
                const std::vector<idx_t> &rows, const std::vector<uint8_t> *parent_valid) {
	auto &u = f.unified;
	const idx_t n = rows.size();
	const auto base = col.valid.size();
	col.valid.resize(base + n);
	std::vector<idx_t> resolved(n);
	bool contiguous = true;
	for (idx_t i = 0; i < n; i++) {
		resolved[i] = u.sel->get_index(rows[i]);
		contiguous &= resolved[i] == resolved[0] + i;
	}
	if (u.validity.AllValid() && !parent_valid) {
		std::memset(col.valid.data() + base, 1, n);
	} else {
		for (idx_t i = 0; i < n; i++) {
			bool valid = u.validity.RowIsValid(resolved[i]) && (!parent_valid || (*parent_valid)[i]);
			col.valid[base + i] = valid;
			col.any_null |= !valid;
		}
	}
	const uint8_t *valid = col.valid.data() + base;
	auto &children = type.Children();
	col.children.resize(children.size());
	switch (type.id) {
	case vtx::TypeId::STRUCT:
	case vtx::TypeId::ARRAY: {
		col.fixed.resize(base + n);
		std::memset(col.fixed.data() + base, 1, n);
		std::vector<uint8_t> child_valid(valid, valid + n);
		if (type.id == vtx::TypeId::STRUCT) {
			// A struct's fields line up with its rows before its selection: slicing a struct slices
			// its fields too (DuckDB's VectorStructBuffer), so a field's row is `rows[i]` through
			// the field's own selection, never through the struct's as well.
			for (idx_t c = 0; c < children.size(); c++) {
				AppendRows(col.children[c], children[c].type, f.children[c], rows, &child_valid);
			}
			return;
		}
		// An array has its N elements even when NULL; they are stored NULL then.
		const idx_t size = type.nested->array_size;
		std::vector<idx_t> elements(n * size);
		std::vector<uint8_t> element_valid(n * size);
		for (idx_t i = 0; i < n; i++) {
			for (idx_t k = 0; k < size; k++) {
				elements[i * size + k] = resolved[i] * size + k;
				element_valid[i * size + k] = valid[i];
			}
		}
		AppendRows(col.children[0], children[0].type, f.children[0], elements, &element_valid);
		return;
	}
	case vtx::TypeId::UNION: {
		// DuckDB's union is a struct of the tag and the members; the tag is this node's stream.
		col.fixed.resize(base + n);
		auto &tags = f.children[0].unified;
		auto tag_data = UnifiedVectorFormat::GetData<uint8_t>(tags);
		std::vector<uint8_t> tag(n);
		for (idx_t i = 0; i < n; i++) {
			// DuckDB marks a NULL union by its tag: the struct around it may still say valid. The
			// tag and members are the fields of a struct: indexed as a struct's (above).
			auto t = tags.sel->get_index(rows[i]);
			if (valid[i] && !tags.validity.RowIsValid(t)) {
				col.valid[base + i] = false;
				col.any_null = true;
			}
			tag[i] = valid[i] ? tag_data[t] : 0;
			col.fixed[base + i] = tag[i];
		}
		for (idx_t c = 0; c < children.size(); c++) {
			std::vector<uint8_t> member_valid(n);
			for (idx_t i = 0; i < n; i++) {
				member_valid[i] = valid[i] && tag[i] == c;
			}
			AppendRows(col.children[c], children[c].type, f.children[c + 1], rows, &member_valid);
		}
		return;
	}
	case vtx::TypeId::LIST:
	case vtx::TypeId::MAP: {
		col.fixed.resize((base + n) * sizeof(uint64_t));
		auto entries = UnifiedVectorFormat::GetData<list_entry_t>(u);
		std::vector<idx_t> elements;
		for (idx_t i = 0; i < n; i++) {
			uint64_t len = 0;
			if (valid[i]) {
				auto &e = entries[resolved[i]];
				len = e.length;
				for (idx_t k = 0; k < e.length; k++) {
					elements.push_back(e.offset + k);
				}
			}
			std::memcpy(col.fixed.data() + (base + i) * sizeof(uint64_t), &len, sizeof(len));
		}
		if (type.id == vtx::TypeId::LIST) {
			AppendRows(col.children[0], children[0].type, f.children[0], elements, nullptr);
			return;
		}
		// A map's entries are a struct of key and value, never NULL themselves; its fields are
		// indexed as a struct's (above).
		auto &entry = f.children[0];
		AppendRows(col.children[0], children[0].type, entry.children[0], elements, nullptr);
		AppendRows(col.children[1], children[1].type, entry.children[1], elements, nullptr);
		return;
	}
	default:
		break;
	}
	const auto width = type.ByteWidth();
	if (width) {
		col.fixed.resize((base + n) * width);
		if (contiguous && n) {
			// The common case (a struct's fields, a list's elements): one copy.
			std::memcpy(col.fixed.data() + base * width, u.data + resolved[0] * width, n * width);
			return;
		}
		for (idx_t i = 0; i < n; i++) {
			std::memcpy(col.fixed.data() + (base + i) * width, u.data + resolved[i] * width, width);
		}
		return;
	}
	auto strings = UnifiedVectorFormat::GetData<string_t>(u);
	for (idx_t i = 0; i < n; i++) {
		if (valid[i]) {
			auto &s = strings[resolved[i]];
			col.bytes.insert(col.bytes.end(), s.GetData(), s.GetData() + s.GetSize());
		}
		col.offsets.push_back(col.bytes.size());
	}
}

//! The writer's view of a stream; its strings are viewed through `col.refs`, kept with the column.
vtx::ColumnInput InputOf(Column &col, const vtx::ColumnType &type, uint64_t count) {
	vtx::ColumnInput in;
	in.type = type;
	in.count = count;
	in.valid = col.any_null ? col.valid.data() : nullptr;
	if (type.ByteWidth()) {
		in.fixed = col.fixed.data();
	} else {
		auto &refs = col.refs;
		refs.resize(count);
		uint64_t begin = 0;
		for (uint64_t i = 0; i < count; i++) {
			auto end = col.offsets[i];
			if (end - begin > UINT32_MAX) {
				throw InvalidInputException("vortex: a string longer than 4 GiB cannot be stored");
			}
			refs[i] = vtx::StringRef {col.bytes.data() + begin, static_cast<uint32_t>(end - begin)};
			begin = end;
		}
		in.strings = refs.data();
	}
	auto &children = type.Children();
	for (size_t c = 0; c < children.size(); c++) {
		auto &child = col.children[c];
		in.children.push_back(InputOf(child, children[c].type, child.valid.size()));
	}
	return in;
}

} // namespace

ZoneAccumulator::ZoneAccumulator(std::vector<vtx::ColumnType> types_p, vtx::WriterOptions options_p,
                                 std::vector<bool> sketched_p)
    : types(std::move(types_p)), options(options_p), sketched(std::move(sketched_p)) {
	sketched.resize(types.size(), false);
	for (idx_t c = 0; c < types.size(); c++) {
		logical.push_back(sketched[c] ? ToLogicalType(types[c]) : LogicalType::SQLNULL);
	}
	auto &pool = Pool();
	std::lock_guard<std::mutex> guard(pool.lock);
	while (columns.size() < types.size()) {
		if (pool.columns.empty()) {
			columns.emplace_back();
		} else {
			columns.push_back(std::move(pool.columns.back()));
			pool.columns.pop_back();
		}
	}
}

ZoneAccumulator::~ZoneAccumulator() {
	for (auto &col : columns) {
		col.Clear();
	}
	auto &pool = Pool();
	std::lock_guard<std::mutex> guard(pool.lock);
	// Last column first, so that the next accumulator (COPY makes one per batch or zone) takes
	// each column's buffers back for the same column: a string column handed an integer
	// column's buffers grows them again, page by page.
	for (auto it = columns.rbegin(); it != columns.rend(); ++it) {
		// Bounded: at most 256 columns of at most 256 MiB each, and only while a COPY or scan is
		// in flight. A long text column's zone is tens of MiB (TPC-H's ps_comment: 17), and it is
		// the column that most needs its buffer back.
		if (pool.columns.size() < 256 && Held(*it) <= (size_t(256) << 20)) {
			pool.columns.push_back(std::move(*it));
		}
	}
}

void ZoneAccumulator::Append(DataChunk &chunk, std::vector<vtx::EncodedZone> &out) {
	idx_t done = 0;
	while (done < chunk.size()) {
		done += AppendUntilFull(chunk, done);
		if (Full()) {
			Flush(out);
		}
	}
}

idx_t ZoneAccumulator::AppendUntilFull(DataChunk &chunk, idx_t start) {
	const idx_t take = std::min<idx_t>(chunk.size() - start, options.zone_rows - rows);
	AppendRange(chunk, start, take);
	return take;
}

void ZoneAccumulator::AppendRange(DataChunk &chunk, idx_t start, idx_t count) {
	for (idx_t c = 0; c < types.size(); c++) {
		auto &col = columns[c];
		if (col.valid.capacity() < options.zone_rows) {
			col.valid.reserve(options.zone_rows);
			col.fixed.reserve(options.zone_rows * types[c].ByteWidth());
			col.offsets.reserve(types[c].ByteWidth() ? 0 : options.zone_rows);
		}
		if (types[c].IsNested()) {
			RecursiveUnifiedVectorFormat f;
			Vector::RecursiveToUnifiedFormat(chunk.data[c], chunk.size(), f);
			std::vector<idx_t> rows_of(count);
			for (idx_t i = 0; i < count; i++) {
				rows_of[i] = start + i;
			}
			AppendRows(col, types[c], f, rows_of, nullptr);
			continue;
		}
		UnifiedVectorFormat fmt;
		chunk.data[c].ToUnifiedFormat(chunk.size(), fmt);
		col.valid.resize(rows + count);
		const auto width = types[c].ByteWidth();
		if (width) {
			col.fixed.resize((rows + count) * width);
		}
		const bool flat = !fmt.sel->IsSet();
		if (width && flat && fmt.validity.AllValid()) {
			// The common case: one copy per chunk instead of one per value.
			std::memset(col.valid.data() + rows, 1, count);
			std::memcpy(col.fixed.data() + rows * width, fmt.data + start * width, count * width);
			continue;
		}
		if (!width) {
			AppendStrings(col, fmt, start, count);
			continue;
		}
		if (flat) {
			// Values copied whole (a NULL row's bytes are never read), validity unpacked from
			// DuckDB's mask as the decoder unpacks bitmaps, where the rows start on a word of it
			// (a chunk split at a zone's end does not).
			std::memcpy(col.fixed.data() + rows * width, fmt.data + start * width, count * width);
			const auto *mask = fmt.validity.GetData();
			uint8_t *valid = col.valid.data() + rows;
			if (start % 64 == 0) {
				vtx::UnpackBitsToBytes(reinterpret_cast<const uint8_t *>(mask + start / 64), count, 0, 1, valid);
			} else {
				for (idx_t i = 0; i < count; i++) {
					valid[i] = (mask[(start + i) >> 6] >> ((start + i) & 63)) & 1;
				}
			}
			col.any_null |= count && std::memchr(valid, 0, count) != nullptr;
			continue;
		}
		for (idx_t i = 0; i < count; i++) {
			auto idx = fmt.sel->get_index(start + i);
			bool valid = fmt.validity.RowIsValid(idx);
			col.valid[rows + i] = valid;
			col.any_null |= !valid;
			std::memcpy(col.fixed.data() + (rows + i) * width, fmt.data + idx * width, width);
		}
	}
	rows += count;
}

void ZoneAccumulator::AppendStrings(Column &col, const UnifiedVectorFormat &fmt, idx_t start, idx_t count) {
	auto strings = UnifiedVectorFormat::GetData<string_t>(fmt);
	uint64_t total = 0;
	for (idx_t i = 0; i < count; i++) {
		auto idx = fmt.sel->get_index(start + i);
		const bool valid = fmt.validity.RowIsValid(idx);
		col.valid[rows + i] = valid;
		col.any_null |= !valid;
		total += valid ? strings[idx].GetSize() : 0;
	}
	if (col.bytes.empty() && count) {
		// Sized from the zone's first rows: grown by doubling instead, a long text column's
		// buffer was copied over and over and overshot the zone by half.
		const uint64_t expected = total / count * options.zone_rows + total / count * options.zone_rows / 8;
		if (col.bytes.capacity() < expected) {
			col.bytes.reserve(std::min<uint64_t>(expected, uint64_t(1) << 30));
		}
	}
	// Sized once per chunk, then each string copied to its place.
	uint64_t end = col.bytes.size();
	col.bytes.resize(end + total);
	const auto offsets = col.offsets.size();
	col.offsets.resize(offsets + count);
	for (idx_t i = 0; i < count; i++) {
		if (col.valid[rows + i]) {
			auto &s = strings[fmt.sel->get_index(start + i)];
			std::memcpy(col.bytes.data() + end, s.GetData(), s.GetSize());
			end += s.GetSize();
		}
		col.offsets[offsets + i] = end;
	}
}

namespace {

//! The encoder's distinct values are not stored: freed before the zone waits for its turn.
void ReleaseDistinctValues(vtx::EncodedChunk &chunk) {
	std::vector<uint8_t>().swap(chunk.distinct_values);
	for (auto &child : chunk.children) {
		ReleaseDistinctValues(child);
	}
}

} // namespace

void ZoneAccumulator::Flush(std::vector<vtx::EncodedZone> &out) {
	if (rows == 0) {
		return;
	}
	vtx::EncodedZone zone;
	StartZone(zone);
	for (idx_t c = 0; c < types.size(); c++) {
		EncodeColumn(c, zone);
	}
	out.push_back(std::move(zone));
	Reset();
}

void ZoneAccumulator::StartZone(vtx::EncodedZone &zone) const {
	zone.rows = rows;
	zone.chunks.resize(types.size());
}

void ZoneAccumulator::EncodeColumn(idx_t c, vtx::EncodedZone &zone) {
	if (c == 0 && FaultInjected("copy_encode_zone")) {
		throw IOException("vortex: injected failure while encoding a zone");
	}
	const auto input = InputOf(columns[c], types[c], rows);
	auto &chunk = zone.chunks[c];
	vtx::EncodeChunkInto(input, options, chunk);
	// Sketched once the zone is encoded: a column with few distinct values (its statistics list
	// them), or integers of a narrow frame (the encoder found their distinct values), is hashed a
	// value, not a row, at a time.
	if (sketched[c]) {
		auto &stats = chunk.stats;
		if (stats.has_distinct) {
			stats.sketch = SketchOfDistinct(logical[c], types[c], stats.distinct);
		} else if (!chunk.distinct_values.empty()) {
			stats.sketch = SketchOfValues(logical[c], types[c], chunk.distinct_values);
		} else {
			HyperLogLog registers;
			SketchInput(logical[c], input, registers);
			stats.sketch = RegistersOf(registers);
		}
		stats.has_sketch = true;
	}
	ReleaseDistinctValues(chunk);
}

namespace {

//! Bytes a stream's rows fill (not its buffers' capacity, which a pooled buffer may have from a
//! wider column).
uint64_t Filled(const Column &col) {
	uint64_t n = col.valid.size() + col.fixed.size() + col.offsets.size() * sizeof(uint64_t) + col.bytes.size();
	for (auto &c : col.children) {
		n += Filled(c);
	}
	return n;
}

} // namespace

uint64_t ZoneAccumulator::ColumnBytes(idx_t c) const {
	return Filled(columns[c]);
}

void ZoneAccumulator::Reset() {
	for (auto &col : columns) {
		col.Clear();
	}
	rows = 0;
}

} // namespace vortex
