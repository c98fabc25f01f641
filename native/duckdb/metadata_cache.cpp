#include "metadata_cache.hpp"

#include <cstring>
#include <list>
#include <mutex>
#include <unordered_map>

namespace vortex {

namespace {

struct Entry {
	uint64_t size;
	uint8_t trailer[vtx::kTrailerSize];
	std::shared_ptr<const vtx::FileMetadata> meta;
};

// Bounded so that a service scanning many distinct files does not grow without limit.
constexpr size_t kMaxEntries = 4096;

std::mutex cache_lock;
std::unordered_map<std::string, Entry> cache;
std::list<std::string> order;

} // namespace

std::shared_ptr<const vtx::FileMetadata> GetMetadata(FileSource &source) {
	auto size = source.Size();
	uint8_t trailer[vtx::kTrailerSize] = {0};
	if (size >= vtx::kHeaderSize + vtx::kTrailerSize) {
		source.ReadAt(size - vtx::kTrailerSize, trailer, vtx::kTrailerSize);
		std::lock_guard<std::mutex> guard(cache_lock);
		auto it = cache.find(source.Path());
		if (it != cache.end() && it->second.size == size &&
		    std::memcmp(it->second.trailer, trailer, vtx::kTrailerSize) == 0) {
			return it->second.meta;
		}
	}
	std::shared_ptr<const vtx::FileMetadata> meta;
	try {
		meta = std::make_shared<const vtx::FileMetadata>(vtx::ReadMetadata(source));
	} catch (vtx::FormatError &e) {
		ThrowFileError(source.Path(), e);
	}
	std::lock_guard<std::mutex> guard(cache_lock);
	if (cache.find(source.Path()) == cache.end()) {
		order.push_back(source.Path());
		if (order.size() > kMaxEntries) {
			cache.erase(order.front());
			order.pop_front();
		}
	}
	Entry e;
	e.size = size;
	std::memcpy(e.trailer, trailer, vtx::kTrailerSize);
	e.meta = meta;
	cache[source.Path()] = std::move(e);
	return meta;
}

} // namespace vortex
