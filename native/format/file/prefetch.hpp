// Coalesced reads (issue 58): on object storage every read is a request of tens of milliseconds,
// so the segments a zone's readers are about to read, where they lie close together in the file,
// are fetched in one read and the segment reads are then served from it. How far apart two
// segments may lie and still be read together (the gap read with them) is the caller's choice:
// what a request costs against reading the gap (native/duckdb/zone_fetch.hpp).
#pragma once
#include "metadata.hpp"
#include "reader.hpp"

#include <vector>

namespace vtx {

struct ByteRange {
	uint64_t offset = 0;
	uint64_t size = 0;
};

//! Appends the stored segments ReadChunk reads for column `column` of zone `zone` (with the same
//! `selection`): the column's own and those of the streams below it that are read.
void ChunkSegments(const FileMetadata &meta, size_t zone, size_t column, const StreamSelection *selection,
                   std::vector<ByteRange> &out);
//! The same for one stream of type `type` (ReadChunkAt's, a leaf of a struct): its segment and
//! those of the streams below it.
void StreamSegments(const ChunkMeta &chunk, const ColumnType &type, std::vector<ByteRange> &out);

//! Sorts `ranges` and merges those that overlap or lie within `gap` bytes of each other.
std::vector<ByteRange> Coalesce(std::vector<ByteRange> ranges, uint64_t gap);

//! A source that serves reads lying inside ranges fetched beforehand (Fetch) from memory, and
//! any other read from the source it wraps.
class PrefetchedSource : public InputSource {
public:
	explicit PrefetchedSource(InputSource &source) : source(source) {
	}
	uint64_t Size() override {
		return source.Size();
	}
	uint64_t CacheIdentity() override {
		return source.CacheIdentity();
	}
	void ReadAt(uint64_t offset, uint8_t *dst, size_t n) override;
	//! Reads each range of `runs` (Coalesce's output) that merges more than one segment of
	//! `segments` in one read; a lone segment is left to its own read. Drops what was held before.
	void Fetch(const std::vector<ByteRange> &segments, uint64_t gap);

private:
	struct Run {
		uint64_t offset;
		std::vector<uint8_t> bytes;
	};
	InputSource &source;
	std::vector<Run> runs;
};

} // namespace vtx
