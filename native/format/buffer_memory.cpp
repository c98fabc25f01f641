#include "buffer_memory.hpp"

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

namespace vtx {

namespace {

//! Smaller blocks are malloc's own business (its bins reuse them without faults).
constexpr size_t kCachedFrom = size_t(64) << 10;
//! Larger blocks are rare (a zone of long strings) and not worth holding.
constexpr size_t kCachedUpTo = size_t(64) << 20;
//! What the cache holds at most: several zones of several columns on every thread.
constexpr size_t kCachedBytesLimit = size_t(256) << 20;

//! Size classes of a quarter of a power of two (at most a fifth of a block unused): a class is
//! (exponent, quarter), and both ends of a block's life map its byte count to the same class.
struct SizeClass {
	unsigned index;
	size_t bytes;
};

SizeClass ClassOf(size_t bytes) {
	unsigned e = 63 - __builtin_clzll(bytes); // 2^e <= bytes < 2^(e+1)
	const size_t step = size_t(1) << (e - 2);
	const size_t rounded = (bytes + step - 1) / step * step; // 4..8 steps of 2^(e-2)
	unsigned quarter = static_cast<unsigned>(rounded / step) - 4; // 0..4
	if (quarter == 4) {
		// 2^(e+1) is the first class of the next power: one list per block size, so that a
		// zone's 983,040-byte buffer (rounded up to 1 MiB) and a 1 MiB one share their blocks.
		e++;
		quarter = 0;
	}
	return {e * 4 + quarter, rounded};
}

struct Cache {
	std::mutex lock;
	std::vector<std::vector<void *>> free_blocks = std::vector<std::vector<void *>>(64 * 4);
	size_t cached = 0;
};

Cache &TheCache() {
	// Leaked on purpose: blocks may be released by threads that outlive static destruction.
	static auto *c = new Cache();
	return *c;
}

void *Malloc(size_t bytes) {
	void *p = std::malloc(bytes > 0 ? bytes : 1); // malloc(0) may return null, which is no failure
	if (!p) {
		throw std::bad_alloc();
	}
	return p;
}

} // namespace

void *AllocateBuffer(size_t bytes) {
	if (bytes < kCachedFrom || bytes > kCachedUpTo) {
		return Malloc(bytes);
	}
	const auto c = ClassOf(bytes);
	auto &cache = TheCache();
	{
		std::lock_guard<std::mutex> guard(cache.lock);
		auto &list = cache.free_blocks[c.index];
		if (!list.empty()) {
			void *p = list.back();
			list.pop_back();
			cache.cached -= c.bytes;
			return p;
		}
	}
	return Malloc(c.bytes);
}

void ReleaseBuffer(void *pointer, size_t bytes) {
	if (bytes < kCachedFrom || bytes > kCachedUpTo) {
		std::free(pointer);
		return;
	}
	const auto c = ClassOf(bytes);
	auto &cache = TheCache();
	{
		std::lock_guard<std::mutex> guard(cache.lock);
		if (cache.cached + c.bytes <= kCachedBytesLimit) {
			try {
				cache.free_blocks[c.index].push_back(pointer);
				cache.cached += c.bytes;
				return;
			} catch (std::bad_alloc &) {
				// No room to note it: freed below.
			}
		}
	}
	std::free(pointer);
}

size_t TrimBuffers() {
	std::vector<void *> drop;
	size_t freed = 0;
	{
		auto &cache = TheCache();
		std::lock_guard<std::mutex> guard(cache.lock);
		for (auto &list : cache.free_blocks) {
			drop.insert(drop.end(), list.begin(), list.end());
			list.clear();
			list.shrink_to_fit();
		}
		freed = cache.cached;
		cache.cached = 0;
	}
	for (auto p : drop) {
		std::free(p);
	}
	return freed;
}

size_t CachedBufferBytes() {
	auto &cache = TheCache();
	std::lock_guard<std::mutex> guard(cache.lock);
	return cache.cached;
}

} // namespace vtx
