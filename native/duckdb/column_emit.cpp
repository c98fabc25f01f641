#include "column_emit.hpp"

#include "../format/encodings/encoding.hpp"

#include "duckdb_compat.hpp"

#include <atomic>
#include <cstring>
#include <string>

namespace vortex {

using namespace duckdb;

namespace {

//! Keeps a decoded chunk alive as long as a DuckDB vector points into it.
class ChunkBuffer : public VectorBuffer {
public:
	explicit ChunkBuffer(std::shared_ptr<vtx::DecodedColumn> chunk)
	    : VectorBuffer(VectorBufferType::OPAQUE_BUFFER), chunk(std::move(chunk)) {
	}
	std::shared_ptr<vtx::DecodedColumn> chunk;
};

//! A chunk's dictionary as DuckDB sees it, once per chunk: a dictionary-encoded string chunk's
//! strings (copied into the vector's own heap, so the cache holds no reference back to the
//! chunk), or a fixed-width chunk's deferred entries (its dictionary, or its runs' values), plus
//! one NULL entry at the end when the chunk has NULLs.
struct DictionaryCache {
	DictionaryCache(const LogicalType &type, idx_t size) : dict(type, size) {
	}
	Vector dict;
	idx_t size = 0;
	std::string id;
};

DictionaryCache &GetDictionary(const vtx::DecodedColumn &chunk, vtx::DecodedColumn &owner, const LogicalType &type,
                               uint32_t width = 0) {
	if (owner.consumer_cache) {
		return *static_cast<DictionaryCache *>(owner.consumer_cache.get());
	}
	const idx_t d = width ? chunk.deferred.size : chunk.dictionary.size();
	const idx_t size = d + (chunk.all_valid ? 0 : 1);
	auto cache = std::make_shared<DictionaryCache>(type, size);
	if (width) {
		std::memcpy(FlatVector::GetData(cache->dict), chunk.deferred.entries, d * width);
	} else {
		auto data = FlatVector::GetData<string_t>(cache->dict);
		for (idx_t i = 0; i < d; i++) {
			auto &s = chunk.dictionary[i];
			data[i] = StringVector::AddStringOrBlob(cache->dict, s.ptr, s.len);
		}
		if (size > d) {
			data[d] = string_t();
		}
	}
	if (size > d) {
		FlatVector::SetNull(cache->dict, d, true);
	}
	cache->size = size;
	static std::atomic<uint64_t> next_id {0};
	cache->id = "vortex-" + std::to_string(next_id++);
	owner.consumer_cache = cache;
	return *cache;
}

//! Fixed-width values left in a dictionary or in runs go on as a dictionary vector over their
//! entries where DuckDB's hash aggregate takes one: it then looks each entry up once per
//! dictionary id (TryAddDictionaryGroups) instead of each row, as it does for Parquet's
//! dictionary pages, but only below this many entries. `count(DISTINCT UserID)` over ClickBench's
//! run-length UserID (16,555 runs a zone of 122,880 rows) spent 42% of its time finding groups
//! row by row, and took 1.5x Parquet's time.
constexpr uint64_t kMaxDictionaryEntries = 20000;
//! Below this many rows per entry, looking entries up saves little, and every other consumer
//! pays a selection per row: the values are decoded flat.
constexpr uint64_t kMinRowsPerEntry = 4;

bool EmitFixedDictionary(const vtx::DecodedColumn &chunk, vtx::DecodedColumn &owner, idx_t offset, idx_t count,
                         uint32_t width, Vector &out) {
	const auto &d = chunk.deferred;
	if (!vtx::DeferredAsEntries(chunk) || d.size + 1 >= kMaxDictionaryEntries || d.size * kMinRowsPerEntry > chunk.count) {
		return false;
	}
	auto &cache = GetDictionary(chunk, owner, out.GetType(), width);
	SelectionVector sel(count);
	static_assert(sizeof(sel_t) == sizeof(uint32_t), "selection entries are 32-bit indexes");
	auto index = reinterpret_cast<uint32_t *>(sel.data());
	vtx::DecodeEntryIndexes(chunk, offset, offset + count, index);
	if (!chunk.all_valid) {
		const auto null_entry = static_cast<uint32_t>(cache.size - 1);
		for (idx_t i = 0; i < count; i++) {
			index[i] = chunk.IsValid(offset + i) ? index[i] : null_entry;
		}
	}
	out.Dictionary(cache.dict, cache.size, sel, count);
	compat::SetDictionaryId(out, cache.id);
	return true;
}

//! Sets rows [at, at + count) of `dst` NULL. DuckDB's FlatVector::SetNull also sets the fields
//! of a struct (a union's tag among them) and the elements of an array NULL; a NULL list is
//! given an empty entry, so that nothing below it is read.
void SetNullRows(const vtx::ColumnType &type, Vector &dst, idx_t at, idx_t count, const vtx::DecodedColumn *chunk,
                 idx_t offset) {
	const bool lists = type.id == vtx::TypeId::LIST || type.id == vtx::TypeId::MAP;
	auto entries = lists ? FlatVector::GetData<list_entry_t>(dst) : nullptr;
	const idx_t base = lists ? ListVector::GetListSize(dst) : 0;
	for (idx_t i = 0; i < count; i++) {
		if (chunk && chunk->IsValid(offset + i)) {
			continue;
		}
		FlatVector::SetNull(dst, at + i, true);
		if (lists) {
			entries[at + i] = list_entry_t(base, 0);
		}
	}
}

//! Copies values [offset, offset + count) of a decoded stream of `type` into the flat vector
//! `dst` from position `at` (which has room), children included.
void CopyInto(const vtx::DecodedColumn &chunk, const std::shared_ptr<vtx::DecodedColumn> &owner, idx_t offset,
              idx_t count, const vtx::ColumnType &type, Vector &dst, idx_t at) {
	if (chunk.all_null) {
		// Also a field a projection left out (StreamSelection), which has no children decoded.
		SetNullRows(type, dst, at, count, nullptr, 0);
		return;
	}
	if (!chunk.all_valid) {
		SetNullRows(type, dst, at, count, &chunk, offset);
	}
	auto &children = type.Children();
	switch (type.id) {
	case vtx::TypeId::STRUCT: {
		auto &entries = StructVector::GetEntries(dst);
		for (idx_t c = 0; c < children.size(); c++) {
			CopyInto(chunk.children[c], owner, offset, count, children[c].type, *entries[c], at);
		}
		return;
	}
	case vtx::TypeId::UNION: {
		auto &entries = StructVector::GetEntries(dst);
		auto tags = FlatVector::GetData<uint8_t>(*entries[0]);
		std::memcpy(tags + at, chunk.Fixed() + offset, count);
		for (idx_t c = 0; c < children.size(); c++) {
			CopyInto(chunk.children[c], owner, offset, count, children[c].type, *entries[c + 1], at);
		}
		return;
	}
	case vtx::TypeId::ARRAY: {
		const idx_t size = type.nested->array_size;
		CopyInto(chunk.children[0], owner, offset * size, count * size, children[0].type, ArrayVector::GetEntry(dst),
		         at * size);
		return;
	}
	case vtx::TypeId::LIST:
	case vtx::TypeId::MAP: {
		auto entries = FlatVector::GetData<list_entry_t>(dst);
		const idx_t base = ListVector::GetListSize(dst);
		const uint64_t first = chunk.list_offsets[offset];
		for (idx_t i = 0; i < count; i++) {
			entries[at + i].offset = base + (chunk.list_offsets[offset + i] - first);
			entries[at + i].length = chunk.list_offsets[offset + i + 1] - chunk.list_offsets[offset + i];
		}
		const idx_t total = chunk.list_offsets[offset + count] - first;
		ListVector::Reserve(dst, base + total);
		auto &child = ListVector::GetEntry(dst);
		if (type.id == vtx::TypeId::LIST) {
			CopyInto(chunk.children[0], owner, first, total, children[0].type, child, base);
		} else {
			auto &kv = StructVector::GetEntries(child);
			CopyInto(chunk.children[0], owner, first, total, children[0].type, *kv[0], base);
			CopyInto(chunk.children[1], owner, first, total, children[1].type, *kv[1], base);
		}
		ListVector::SetListSize(dst, base + total);
		return;
	}
	default:
		break;
	}
	const auto width = type.ByteWidth();
	if (width) {
		std::memcpy(FlatVector::GetData(dst) + at * width, chunk.Fixed() + offset * width, count * width);
		return;
	}
	auto data = FlatVector::GetData<string_t>(dst);
	bool referenced = false;
	for (idx_t i = 0; i < count; i++) {
		auto &s = chunk.StringAt(offset + i);
		data[at + i] = string_t(s.ptr, s.len);
		referenced |= s.len > string_t::INLINE_LENGTH;
	}
	if (referenced) {
		StringVector::AddBuffer(dst, make_buffer<ChunkBuffer>(owner));
	}
}

//! The chunk's validity of rows [offset, offset + count); offset is a multiple of
//! STANDARD_VECTOR_SIZE, so whole words line up.
void EmitValidity(const vtx::DecodedColumn &chunk, idx_t offset, idx_t count, Vector &out) {
	auto &mask = FlatVector::Validity(out);
	mask.Initialize(MaxValue<idx_t>(count, STANDARD_VECTOR_SIZE));
	auto words = (count + 63) / 64;
	std::memcpy(mask.GetData(), chunk.validity.data() + offset / 64, words * sizeof(uint64_t));
}

} // namespace

void EmitColumn(const vtx::DecodedColumn &chunk, const std::shared_ptr<vtx::DecodedColumn> &owner, idx_t offset,
                idx_t count, const vtx::ColumnType &type, Vector &out) {
	if (type.IsNested()) {
		out.SetVectorType(VectorType::FLAT_VECTOR);
		CopyInto(chunk, owner, offset, count, type, out, 0);
		return;
	}
	const uint32_t width = type.ByteWidth();
	if (chunk.all_null) {
		out.SetVectorType(VectorType::CONSTANT_VECTOR);
		ConstantVector::SetNull(out, true);
		return;
	}
	if (width == 0 && !chunk.codes.empty()) {
		// Dictionary-encoded: a DuckDB dictionary vector, no string materialised per row.
		auto &cache = GetDictionary(chunk, *owner, out.GetType());
		SelectionVector sel(count);
		const uint32_t *codes = chunk.codes.data() + offset;
		if (chunk.all_valid) {
			for (idx_t i = 0; i < count; i++) {
				sel.set_index(i, codes[i]);
			}
		} else {
			const auto null_entry = static_cast<uint32_t>(cache.size - 1);
			for (idx_t i = 0; i < count; i++) {
				sel.set_index(i, chunk.IsValid(offset + i) ? codes[i] : null_entry);
			}
		}
		out.Dictionary(cache.dict, cache.size, sel, count);
		compat::SetDictionaryId(out, cache.id);
		return;
	}
	if (width == 0) {
		auto data = FlatVector::GetData<string_t>(out);
		bool referenced = false;
		const vtx::StringRef *src = chunk.strings.data() + offset;
		for (idx_t i = 0; i < count; i++) {
			data[i] = string_t(src[i].ptr, src[i].len);
			referenced |= src[i].len > string_t::INLINE_LENGTH;
		}
		if (referenced) {
			StringVector::AddBuffer(out, make_buffer<ChunkBuffer>(owner));
		}
	} else {
		// The chunk's values are aligned to their width (or to 8 bytes): reference them.
		FlatVector::SetData(out, const_cast<data_ptr_t>(chunk.Fixed() + offset * width));
		out.SetAuxiliary(make_buffer<ChunkBuffer>(owner));
	}
	if (!chunk.all_valid) {
		EmitValidity(chunk, offset, count, out);
	}
}

void EmitDeferredColumn(const vtx::DecodedColumn &chunk, const std::shared_ptr<vtx::DecodedColumn> &owner, idx_t offset,
                        idx_t count, const vtx::ColumnType &type, Vector &out) {
	if (EmitFixedDictionary(chunk, *owner, offset, count, type.ByteWidth(), out)) {
		return;
	}
	// Into the vector's own buffer, which DuckDB reuses from chunk to chunk: it stays in cache.
	out.SetVectorType(VectorType::FLAT_VECTOR);
	vtx::DecodeRows(type.Storage(), chunk, offset, offset + count, FlatVector::GetData(out));
	if (!chunk.all_valid) {
		EmitValidity(chunk, offset, count, out);
	}
}

bool EmitSelectedRows(const vtx::DecodedColumn &chunk, const std::shared_ptr<vtx::DecodedColumn> &owner, idx_t offset,
                      const SelectionVector &sel, idx_t selected, const vtx::ColumnType &type, Vector &out) {
	if (type.IsNested()) {
		return false;
	}
	if (chunk.all_null) {
		out.SetVectorType(VectorType::CONSTANT_VECTOR);
		ConstantVector::SetNull(out, true);
		return true;
	}
	static_assert(sizeof(sel_t) == sizeof(uint32_t), "selection entries are 32-bit row positions");
	const auto rows = reinterpret_cast<const uint32_t *>(sel.data());
	const uint32_t width = type.ByteWidth();
	if (width == 0 && !chunk.codes.empty()) {
		// Still a dictionary vector over the chunk's dictionary, of the kept rows' codes.
		auto &cache = GetDictionary(chunk, *owner, out.GetType());
		SelectionVector codes(selected);
		const auto null_entry = static_cast<uint32_t>(cache.size - 1);
		for (idx_t i = 0; i < selected; i++) {
			const idx_t row = offset + rows[i];
			codes.set_index(i, chunk.all_valid || chunk.IsValid(row) ? chunk.codes[row] : null_entry);
		}
		out.Dictionary(cache.dict, cache.size, codes, selected);
		compat::SetDictionaryId(out, cache.id);
		return true;
	}
	out.SetVectorType(VectorType::FLAT_VECTOR);
	auto data = FlatVector::GetData(out);
	if (chunk.deferred.encoding) {
		vtx::DecodeRowsAt(type.Storage(), chunk, offset, rows, selected, data);
	} else if (width) {
		const uint8_t *src = chunk.Fixed() + offset * width;
		for (idx_t i = 0; i < selected; i++) {
			std::memcpy(data + i * width, src + rows[i] * width, width);
		}
	} else {
		auto strings = reinterpret_cast<string_t *>(data);
		bool referenced = false;
		for (idx_t i = 0; i < selected; i++) {
			auto &s = chunk.strings[offset + rows[i]];
			strings[i] = string_t(s.ptr, s.len);
			referenced |= s.len > string_t::INLINE_LENGTH;
		}
		if (referenced) {
			StringVector::AddBuffer(out, make_buffer<ChunkBuffer>(owner));
		}
	}
	if (!chunk.all_valid) {
		auto &mask = FlatVector::Validity(out);
		for (idx_t i = 0; i < selected; i++) {
			if (!chunk.IsValid(offset + rows[i])) {
				mask.SetInvalid(i);
			}
		}
	}
	return true;
}

} // namespace vortex
