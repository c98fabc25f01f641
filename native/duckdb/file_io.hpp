// .vtx sources and sinks over DuckDB's FileSystem, so that local files, globs, httpfs
// and DuckDB's access controls (enable_external_access, allowed_directories) behave as
// they do for Parquet.
#pragma once
#include "../format/file/metadata.hpp"
#include "../format/file/reader.hpp"
#include "../format/scratch.hpp"
#include "../format/file/writer.hpp"
#include "duckdb.hpp"
#include "duckdb/common/open_file_info.hpp"
#include "duckdb/storage/caching_file_system.hpp"

namespace vortex {

//! Which version of a file an open saw, as DuckDB's external file cache validates its entries:
//! the ETag where the file system has one (httpfs, an object store's listing), else the
//! last-modified time.
struct FileVersion {
	std::string tag;
	duckdb::timestamp_t last_modified;
};

class FileSource : public vtx::InputSource {
public:
	FileSource(duckdb::ClientContext &context, const std::string &path);
	//! With what a file list knew of the file (its extended info: size, ETag, last-modified), which
	//! spares a remote file system the request that would find them out (a HEAD).
	FileSource(duckdb::ClientContext &context, const duckdb::OpenFileInfo &file);
	uint64_t Size() override {
		return size;
	}
	void ReadAt(uint64_t offset, uint8_t *dst, size_t n) override;
	uint64_t CacheIdentity() override {
		return identity;
	}
	//! Once the footer is known (GetMetadata): names the content as opened, from the path, the
	//! size and the footer's checksum, when vortex_segment_cache allows.
	void SetCacheIdentity(uint32_t footer_crc);
	duckdb::FileHandle &Handle() {
		return *handle;
	}
	const std::string &Path() const {
		return path;
	}
	//! The context the file was opened for (its settings size the metadata cache).
	duckdb::ClientContext &Context() const {
		return context;
	}
	//! The version of the file this handle reads, as its open found it (no request of its own).
	const FileVersion &Version() const {
		return version;
	}
	//! Whether reads go through DuckDB's external file cache: a remote file (not on disk) while
	//! enable_external_file_cache is on. Ranges read then stay for the next query over the same
	//! version of the file; local files are read directly (the OS caches them).
	bool Cached() const {
		return cached != nullptr;
	}
	//! Whether the file is remote (not on disk): each read is then a request, and nearby reads are
	//! worth coalescing (format/file/prefetch.hpp).
	bool Remote() const {
		return remote;
	}

private:
	duckdb::ClientContext &context;
	//! Reusable decode buffers are kept while a source is open (format/scratch.hpp).
	vtx::ScratchActivity activity;
	std::string path;
	//! Where the external file cache is on: the caching file system (which its handle refers to)
	//! and the handle, whose own FileHandle `handle` points to.
	duckdb::unique_ptr<duckdb::CachingFileSystem> caching_fs;
	duckdb::unique_ptr<duckdb::CachingFileHandle> caching;
	//! Otherwise the file's own handle.
	duckdb::unique_ptr<duckdb::FileHandle> owned;
	duckdb::FileHandle *handle = nullptr;
	//! The caching handle when reads go through the cache, else null.
	duckdb::CachingFileHandle *cached = nullptr;
	uint64_t size;
	uint64_t identity = 0;
	FileVersion version;
	bool remote = false;
};

class FileSink : public vtx::OutputSink {
public:
	explicit FileSink(duckdb::FileHandle &handle) : handle(handle) {
	}
	void Write(const uint8_t *data, size_t n) override;
	uint64_t Written() const {
		return written;
	}

private:
	duckdb::FileHandle &handle;
	uint64_t written = 0;
};

//! Turns a format error into a DuckDB error that names the file.
[[noreturn]] void ThrowFileError(const std::string &path, const std::exception &e);

} // namespace vortex
