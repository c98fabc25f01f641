#include "zone_fetch.hpp"

namespace vortex {

void ZoneFetch::Add(const vtx::ChunkMeta &chunk, const vtx::ColumnType &type) {
	if (source.Remote()) {
		vtx::StreamSegments(chunk, type, segments);
	}
}

void ZoneFetch::Add(const vtx::FileMetadata &meta, size_t zone, size_t column, const vtx::StreamSelection *selection) {
	if (source.Remote()) {
		vtx::ChunkSegments(meta, zone, column, selection, segments);
	}
}

void ZoneFetch::Add(const vtx::FileMetadata &meta, size_t zone, const std::vector<uint64_t> &columns) {
	for (auto c : columns) {
		Add(meta, zone, c);
	}
}

vtx::InputSource &ZoneFetch::Fetch(const std::string &path) {
	if (!source.Remote()) {
		return source;
	}
	try {
		prefetched.Fetch(segments, kRemoteGap);
	} catch (vtx::FormatError &e) {
		ThrowFileError(path, e);
	}
	segments.clear();
	return prefetched;
}

} // namespace vortex
