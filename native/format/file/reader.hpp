// Reads .vtx files through an abstract source, verifying before trusting: the magic,
// the footer checksum and bounds, and each segment's checksum.
#pragma once
#include "../column.hpp"
#include "metadata.hpp"

#include <vector>

namespace vtx {

class InputSource {
public:
	virtual ~InputSource() = default;
	virtual uint64_t Size() = 0;
	virtual void ReadAt(uint64_t offset, uint8_t *dst, size_t n) = 0;
	//! Names the file's content as opened, for the segment cache (segment_cache.hpp); 0 (the
	//! default) keeps its segments out of the cache.
	virtual uint64_t CacheIdentity() {
		return 0;
	}
};

//! The bytes an opening reads at once from the end of a file: the trailer and, for all but the
//! widest files, the whole footer in one request (each read is one GET on object storage).
constexpr size_t kTailRead = 64 * 1024;

//! The last min(size, max(want, kTailRead)) bytes of the file, in one read (at least the trailer).
std::vector<uint8_t> ReadTail(InputSource &source, uint64_t want = kTailRead);
//! The file's metadata from its tail (ReadTail): a second read only where the footer is longer.
//! The trailer's magic and the footer's checksum identify the file; the header is not read.
FileMetadata ReadMetadata(InputSource &source, const std::vector<uint8_t> &tail);

//! Reads, verifies, decompresses and decodes one column chunk (of a nested column, the streams
//! `selection` names, or all of them).
//! With `rows`, a flat column's frame-of-reference and ALP values are decoded only for the
//! 64-row blocks the range touches (DecodedColumn::decoded_begin/end say which).
//! With `defer`, a flat column's values may be left packed for DecodeRows (DecodeChunk).
void ReadChunk(InputSource &source, const FileMetadata &meta, size_t zone, size_t column, DecodedColumn &out,
               const StreamSelection *selection = nullptr, const RowRange *rows = nullptr, bool defer = false);

//! Reads one stream of a nested column chunk: the child reached by `route` (child indexes) from
//! the column's own stream, and the streams below it.
void ReadChunkAt(InputSource &source, const FileMetadata &meta, size_t zone, size_t column,
                 const std::vector<size_t> &route, DecodedColumn &out);

//! Reads and verifies a segment without decoding it (returns the decompressed body).
ByteBuffer ReadSegment(InputSource &source, const ChunkMeta &chunk);

} // namespace vtx
