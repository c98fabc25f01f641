#include "reader.hpp"

#include "checksum.hpp"
#include "../encodings/encoding.hpp"
#include "../scratch.hpp"
#include "segment_cache.hpp"

#include <algorithm>
#include <cstring>
#include <new>

namespace vtx {

std::vector<uint8_t> ReadTail(InputSource &source, uint64_t want) {
	const auto size = source.Size();
	if (size < kHeaderSize + kTrailerSize) {
		throw FormatError("file is too small to be a .vtx file (" + std::to_string(size) + " bytes)");
	}
	std::vector<uint8_t> tail(static_cast<size_t>(std::min<uint64_t>(size, std::max<uint64_t>(want, kTailRead))));
	source.ReadAt(size - tail.size(), tail.data(), tail.size());
	return tail;
}

FileMetadata ReadMetadata(InputSource &source, const std::vector<uint8_t> &tail) {
	const auto size = source.Size();
	if (size < kHeaderSize + kTrailerSize || tail.size() < kTrailerSize) {
		throw FormatError("file is too small to be a .vtx file (" + std::to_string(size) + " bytes)");
	}
	const uint8_t *trailer = tail.data() + tail.size() - kTrailerSize;
	if (std::memcmp(trailer + 8, kMagic, 4) != 0) {
		throw FormatError("not a .vtx file (magic bytes missing)");
	}
	uint32_t footer_len, footer_crc;
	std::memcpy(&footer_len, trailer, 4);
	std::memcpy(&footer_crc, trailer + 4, 4);
	if (footer_len > size - kHeaderSize - kTrailerSize) {
		throw FormatError("footer length " + std::to_string(footer_len) + " exceeds the file size");
	}
	std::vector<uint8_t> footer(footer_len);
	const size_t held = tail.size() - kTrailerSize; // footer bytes the tail already holds, at its end
	const size_t from_tail = std::min<size_t>(held, footer_len);
	std::memcpy(footer.data() + footer_len - from_tail, trailer - from_tail, from_tail);
	if (from_tail < footer_len) {
		source.ReadAt(size - kTrailerSize - footer_len, footer.data(), footer_len - from_tail);
	}
	if (Crc32c(footer.data(), footer.size()) != footer_crc) {
		throw FormatError("footer checksum mismatch (file is corrupt)");
	}
	auto meta = FileMetadata::Deserialize(footer.data(), footer.size(), size);
	meta.footer_crc = footer_crc;
	return meta;
}

namespace {

// The values of a plain fixed-width segment start 2 bytes (validity kind, encoding) plus
// 8 bytes per bitmap word into the body: a body placed 6 bytes into an 8-aligned buffer has
// them 8-aligned, so the decoder can hand them to DuckDB where they lie.
constexpr size_t kBodySlack = 6;

[[noreturn]] void ThrowChecksum(const ChunkMeta &chunk) {
	throw FormatError("checksum mismatch in segment at offset " + std::to_string(chunk.offset) + " (file is corrupt)");
}

//! Reads, verifies and decompresses a segment into `buf`, `slack` bytes in.
void ReadSegmentInto(InputSource &source, const ChunkMeta &chunk, ByteBuffer &buf, size_t slack) {
	if (chunk.codec == Codec::NONE) {
		buf.resize(slack + chunk.stored_size);
		if (chunk.stored_size) {
			source.ReadAt(chunk.offset, buf.data() + slack, chunk.stored_size);
		}
		if (Crc32c(buf.data() + slack, chunk.stored_size) != chunk.crc) {
			ThrowChecksum(chunk);
		}
		if (chunk.raw_size != chunk.stored_size) {
			throw FormatError("segment size does not match its declared size");
		}
		return;
	}
	const SegmentKey key {source.CacheIdentity(), chunk.offset, chunk.stored_size, chunk.raw_size, chunk.crc,
	                     static_cast<uint8_t>(chunk.codec)};
	bool admit = false;
	if (LookupSegment(key, buf, slack, admit)) {
		return; // checked when it was read
	}
	// Read through only: a per-thread buffer, released when no query needs it (scratch.hpp).
	ScratchLease lease;
	thread_local ScratchSlot<ByteBuffer> slot;
	auto &scratch = slot.value;
	scratch.resize(chunk.stored_size);
	if (chunk.stored_size) {
		source.ReadAt(chunk.offset, scratch.data(), scratch.size());
	}
	if (Crc32c(scratch.data(), scratch.size()) != chunk.crc) {
		ThrowChecksum(chunk);
	}
	CheckDecompressedSize(chunk.codec, scratch.data(), scratch.size(), chunk.raw_size);
	buf.resize(slack + chunk.raw_size);
	Decompress(chunk.codec, scratch.data(), scratch.size(), buf.data() + slack, chunk.raw_size);
	if (admit) {
		OfferSegment(key, buf.data() + slack);
	}
	if (scratch.capacity() > (size_t(64) << 20)) {
		ByteBuffer().swap(scratch); // do not hold on to an unusually large segment
	}
}

} // namespace

ByteBuffer ReadSegment(InputSource &source, const ChunkMeta &chunk) {
	ByteBuffer body;
	ReadSegmentInto(source, chunk, body, 0);
	return body;
}

namespace {

//! A stream left out by a selection: `rows` NULLs, with no children.
void SkippedStream(uint64_t rows, DecodedColumn &out) {
	out = DecodedColumn();
	out.count = rows;
	out.all_valid = false;
	out.all_null = true;
	out.validity.assign((rows + 63) / 64, 0);
}

void ReadStream(InputSource &source, const ChunkMeta &chunk, const ColumnType &type, const std::string &name,
                DecodedColumn &out, const StreamSelection *selection = nullptr, const RowRange *rows = nullptr,
                bool defer = false) {
	// Into the memory of the chunk's last body, where it is being decoded again.
	ByteBuffer body = std::move(out.buffer);
	body.clear();
	ReadSegmentInto(source, chunk, body, kBodySlack);
	// Only flat columns decode part of their rows: ENUM codes are checked, and nested streams
	// read, over every row.
	const bool flat = type.Children().empty() && type.id != TypeId::ENUM;
	DecodeChunk(type.Storage(), chunk.stats.rows, std::move(body), out, kBodySlack, flat ? rows : nullptr, flat && defer);
	auto &children = type.Children();
	out.children.clear();
	out.list_offsets.clear();
	if (children.empty()) {
		if (type.id == TypeId::ENUM) {
			// Codes index the type's values: one out of range would index past them.
			const auto n = type.nested->enum_values.size();
			const auto *p = out.Fixed();
			for (uint64_t i = 0; i < out.count; i++) {
				uint64_t code = type.width == 1 ? p[i] : type.width == 2 ? reinterpret_cast<const uint16_t *>(p)[i]
				                                                         : reinterpret_cast<const uint32_t *>(p)[i];
				if (out.IsValid(i) && code >= n) {
					throw FormatError("ENUM code out of range in column \"" + name + "\"");
				}
			}
		}
		return;
	}
	if (type.id == TypeId::LIST || type.id == TypeId::MAP) {
		out.list_offsets.resize(out.count + 1);
		const auto *lengths = reinterpret_cast<const uint64_t *>(out.Fixed());
		uint64_t total = 0;
		out.list_offsets[0] = 0;
		for (uint64_t i = 0; i < out.count; i++) {
			const uint64_t len = out.IsValid(i) ? lengths[i] : 0;
			if (len > kMaxZoneRows - total) {
				throw FormatError("list lengths of column \"" + name + "\" exceed the stored elements");
			}
			total += len;
			out.list_offsets[i + 1] = total;
		}
		if (total != chunk.children[0].stats.rows) {
			throw FormatError("list lengths of column \"" + name + "\" do not match the stored elements");
		}
	}
	out.children.resize(children.size());
	const bool partial = selection && !selection->all && type.id == TypeId::STRUCT &&
	                     selection->children.size() == children.size();
	for (size_t i = 0; i < children.size(); i++) {
		if (partial && !selection->children[i].included) {
			SkippedStream(chunk.children[i].stats.rows, out.children[i]);
			continue;
		}
		ReadStream(source, chunk.children[i], children[i].type, name + "." + children[i].name, out.children[i],
		           partial ? &selection->children[i] : nullptr);
	}
}

} // namespace

void ReadChunk(InputSource &source, const FileMetadata &meta, size_t zone, size_t column, DecodedColumn &out,
               const StreamSelection *selection, const RowRange *rows, bool defer) {
	auto &z = meta.zones.at(zone);
	auto &chunk = z.chunks.at(column);
	try {
		ReadStream(source, chunk, meta.fields[column].type, meta.fields[column].name, out, selection, rows, defer);
	} catch (std::bad_alloc &) {
		// A zone is decoded whole (rows x width bytes, up to 2^30 rows): say which one did not fit.
		throw FormatError("zone " + std::to_string(zone) + " of " + std::to_string(z.rows) + " rows of column \"" +
		                  meta.fields[column].name + "\" does not fit in memory");
	}
}

void ReadChunkAt(InputSource &source, const FileMetadata &meta, size_t zone, size_t column,
                 const std::vector<size_t> &route, DecodedColumn &out) {
	const ChunkMeta *chunk = &meta.zones.at(zone).chunks.at(column);
	const ColumnType *type = &meta.fields[column].type;
	std::string name = meta.fields[column].name;
	for (auto i : route) {
		if (i >= type->Children().size()) {
			throw FormatError("column \"" + name + "\" has no child " + std::to_string(i));
		}
		name += "." + type->Children()[i].name;
		chunk = &chunk->children[i];
		type = &type->Children()[i].type;
	}
	try {
		ReadStream(source, *chunk, *type, name, out);
	} catch (std::bad_alloc &) {
		throw FormatError("zone " + std::to_string(zone) + " of column \"" + name + "\" does not fit in memory");
	}
}

} // namespace vtx
