#include "reader.hpp"

#include "checksum.hpp"
#include "encoding.hpp"
#include "scratch.hpp"

#include <cstring>
#include <new>

namespace vtx {

FileMetadata ReadMetadata(InputSource &source) {
	auto size = source.Size();
	if (size < kHeaderSize + kTrailerSize) {
		throw FormatError("file is too small to be a .vtx file (" + std::to_string(size) + " bytes)");
	}
	uint8_t head[kHeaderSize];
	source.ReadAt(0, head, kHeaderSize);
	uint8_t trailer[kTrailerSize];
	source.ReadAt(size - kTrailerSize, trailer, kTrailerSize);
	if (std::memcmp(head, kMagic, 4) != 0 || std::memcmp(trailer + 8, kMagic, 4) != 0) {
		throw FormatError("not a .vtx file (magic bytes missing)");
	}
	uint32_t footer_len, footer_crc;
	std::memcpy(&footer_len, trailer, 4);
	std::memcpy(&footer_crc, trailer + 4, 4);
	if (footer_len > size - kHeaderSize - kTrailerSize) {
		throw FormatError("footer length " + std::to_string(footer_len) + " exceeds the file size");
	}
	std::vector<uint8_t> footer(footer_len);
	source.ReadAt(size - kTrailerSize - footer_len, footer.data(), footer_len);
	if (Crc32c(footer.data(), footer.size()) != footer_crc) {
		throw FormatError("footer checksum mismatch (file is corrupt)");
	}
	auto meta = FileMetadata::Deserialize(footer.data(), footer.size(), size);
	meta.footer_crc = footer_crc;
	return meta;
}

ByteBuffer ReadSegment(InputSource &source, const ChunkMeta &chunk) {
	// A compressed segment is only read through: keep that buffer per thread (released when
	// no query needs it, scratch.hpp).
	ScratchLease lease;
	thread_local ScratchSlot<ByteBuffer> slot;
	auto &scratch = slot.value;
	const bool compressed = chunk.codec != Codec::NONE;
	ByteBuffer direct;
	ByteBuffer &stored = compressed ? scratch : direct;
	stored.resize(chunk.stored_size);
	if (chunk.stored_size) {
		source.ReadAt(chunk.offset, stored.data(), stored.size());
	}
	if (Crc32c(stored.data(), stored.size()) != chunk.crc) {
		throw FormatError("checksum mismatch in segment at offset " + std::to_string(chunk.offset) +
		                  " (file is corrupt)");
	}
	if (!compressed) {
		return direct;
	}
	CheckDecompressedSize(chunk.codec, stored.data(), stored.size(), chunk.raw_size);
	ByteBuffer raw(chunk.raw_size);
	Decompress(chunk.codec, stored.data(), stored.size(), raw.data(), raw.size());
	if (scratch.capacity() > (size_t(64) << 20)) {
		ByteBuffer().swap(scratch); // do not hold on to an unusually large segment
	}
	return raw;
}

void ReadChunk(InputSource &source, const FileMetadata &meta, size_t zone, size_t column, DecodedColumn &out) {
	auto &z = meta.zones.at(zone);
	auto &chunk = z.chunks.at(column);
	try {
		auto body = ReadSegment(source, chunk);
		DecodeChunk(meta.fields[column].type, z.rows, std::move(body), out);
	} catch (std::bad_alloc &) {
		// A zone is decoded whole (rows x width bytes, up to 2^30 rows): say which one did not fit.
		throw FormatError("zone " + std::to_string(zone) + " of " + std::to_string(z.rows) + " rows of column \"" +
		                  meta.fields[column].name + "\" does not fit in memory");
	}
}

} // namespace vtx
