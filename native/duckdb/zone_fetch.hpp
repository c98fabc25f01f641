// One zone's reads of a remote file in as few requests as its layout allows (issue 58). On an
// object store a request costs tens of milliseconds whatever its size, as much as megabytes more
// of the same request (30 ms at 100 MB/s is 3 MB), so the segments a zone's readers are about to
// read are fetched together, with the gaps between them, up to kRemoteGap; the readers are then
// served from memory. A local file is read segment by segment as ever (the OS reads ahead).
#pragma once
#include "../format/file/prefetch.hpp"
#include "file_io.hpp"

namespace vortex {

//! The longest gap between two segments read rather than left to a second request: a request's
//! worth of bytes at the low end of object stores (20-100 ms a request, 50-100 MB/s a stream).
constexpr uint64_t kRemoteGap = uint64_t(1) << 20;

class ZoneFetch {
public:
	explicit ZoneFetch(FileSource &source) : source(source), prefetched(source) {
	}
	//! Lists a stream (and the streams below it) the zone's readers will read.
	void Add(const vtx::ChunkMeta &chunk, const vtx::ColumnType &type);
	//! Lists what ReadChunk reads of column `column` with `selection`.
	void Add(const vtx::FileMetadata &meta, size_t zone, size_t column, const vtx::StreamSelection *selection = nullptr);
	//! Lists whole columns `columns` of a zone; one listed twice costs nothing (Fetch merges).
	void Add(const vtx::FileMetadata &meta, size_t zone, const std::vector<uint64_t> &columns);
	//! Fetches what was listed, on a remote file; `path` names the file in an error. The source to
	//! read the zone from.
	vtx::InputSource &Fetch(const std::string &path);

private:
	FileSource &source;
	vtx::PrefetchedSource prefetched;
	std::vector<vtx::ByteRange> segments;
};

} // namespace vortex
