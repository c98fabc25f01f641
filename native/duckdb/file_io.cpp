#include "file_io.hpp"

#include "settings.hpp"
#include "duckdb/common/types/hash.hpp"

namespace vortex {

using namespace duckdb;

FileSource::FileSource(ClientContext &context, const std::string &path) : FileSource(context, OpenFileInfo(path)) {
}

FileSource::FileSource(ClientContext &context, const OpenFileInfo &file) : context(context), path(file.path) {
	auto &fs = FileSystem::GetFileSystem(context);
	handle = fs.OpenFile(file, FileFlags::FILE_FLAGS_READ | FileFlags::FILE_FLAGS_PARALLEL_ACCESS);
	size = handle->GetFileSize();
}

void FileSource::ReadAt(uint64_t offset, uint8_t *dst, size_t n) {
	if (offset > size || n > size - offset) {
		throw vtx::FormatError("read past the end of the file");
	}
	if (n) {
		handle->Read(dst, n, offset);
	}
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
