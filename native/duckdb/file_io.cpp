#include "file_io.hpp"

#include "settings.hpp"
#include "duckdb/common/types/hash.hpp"
#include "duckdb/storage/buffer_manager.hpp"
#include "duckdb/storage/external_file_cache.hpp"

#include <cstring>

namespace vortex {

using namespace duckdb;

FileSource::FileSource(ClientContext &context, const std::string &path) : FileSource(context, OpenFileInfo(path)) {
}

FileSource::FileSource(ClientContext &context, const OpenFileInfo &file) : context(context), path(file.path) {
	auto &fs = FileSystem::GetFileSystem(context);
	const auto flags = FileFlags::FILE_FLAGS_READ | FileFlags::FILE_FLAGS_PARALLEL_ACCESS;
	if (ExternalFileCache::Get(context).IsEnabled()) {
		// As read_parquet opens its files: the caching handle validates the cache's ranges of this
		// path by the ETag or last-modified time of this open (from the listing where it had them),
		// once. Its FileHandle is opened here, not on a first read: scan threads share a source.
		caching_fs = make_uniq<CachingFileSystem>(fs, *context.db);
		caching = caching_fs->OpenFile(QueryContext(context), file, flags);
		handle = &caching->GetFileHandle();
		version.tag = caching->GetVersionTag();
		version.last_modified = caching->GetLastModifiedTime();
		if (!handle->OnDiskFile()) {
			cached = caching.get();
		}
	} else {
		owned = fs.OpenFile(file, flags);
		handle = owned.get();
		// What the caching handle above asks of every file system, asked the same way.
		version.tag = fs.GetVersionTag(*handle);
		version.last_modified = fs.GetLastModifiedTime(*handle);
	}
	size = handle->GetFileSize();
	remote = !handle->OnDiskFile();
}

void FileSource::ReadAt(uint64_t offset, uint8_t *dst, size_t n) {
	if (offset > size || n > size - offset) {
		throw vtx::FormatError("read past the end of the file");
	}
	if (!n) {
		return;
	}
	if (cached) {
		data_ptr_t data = nullptr;
		auto pin = cached->Read(data, n, offset);
		std::memcpy(dst, data, n);
		return;
	}
	handle->Read(dst, n, offset);
}

void FileSource::SetCacheIdentity(uint32_t footer_crc) {
	if (!SettingEnabled(context, Setting::SEGMENT_CACHE)) {
		identity = 0;
		return;
	}
	uint64_t h = Hash(path.c_str(), path.size());
	h = CombineHash(h, Hash(size));
	h = CombineHash(h, Hash(footer_crc));
	identity = h ? h : 1; // 0 means "not cached"
}

void FileSink::Write(const uint8_t *data, size_t n) {
	if (n) {
		handle.Write(const_cast<uint8_t *>(data), n);
		written += n;
	}
}

void ThrowFileError(const std::string &path, const std::exception &e) {
	throw InvalidInputException("vortex: file \"%s\" is not a valid .vtx file: %s", path, e.what());
}

} // namespace vortex
