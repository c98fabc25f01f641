// Footers parsed once per file version. A cached footer is reused without a read while the open
// says the file is unchanged (the same size and ETag, or a last-modified time that had settled,
// as DuckDB validates its external file cache: no request where a listing described the file);
// otherwise only while its size and trailer (footer length and checksum) are unchanged, checked
// with one small read, so rewritten files are never answered from stale statistics.
#pragma once
#include "file_io.hpp"

#include <memory>

namespace vortex {

std::shared_ptr<const vtx::FileMetadata> GetMetadata(FileSource &source);
//! The same, with the cache's limit (the setting vortex_metadata_cache_size, as bytes) already
//! read: a bind over many files reads and parses the setting once, not once per file.
std::shared_ptr<const vtx::FileMetadata> GetMetadata(FileSource &source, size_t limit);

//! Estimated heap footprint of a parsed footer (the structures, their strings and vectors).
size_t EstimateMetadataBytes(const vtx::FileMetadata &meta);

struct CachedFooter {
	std::string path;
	uint64_t file_size;
	uint64_t zones;
	uint64_t bytes; //! what the entry counts against the cache's limit
};

//! The footers cached for this context's database, most recently used first.
std::vector<CachedFooter> CachedFooters(duckdb::ClientContext &context);

} // namespace vortex
