#include "segment_cache.hpp"

#include <cstring>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace vtx {

namespace {

//! Segments smaller than this are cheap to read again; larger ones would crowd out the rest.
constexpr size_t kSegmentFrom = size_t(16) << 10;
constexpr size_t kSegmentUpTo = size_t(64) << 20;
//! Keys whose requests are counted: enough for every segment of several large files.
constexpr size_t kCountedLimit = 1 << 14;

struct KeyHash {
	size_t operator()(const SegmentKey &k) const {
		uint64_t h = k.source ^ (k.offset * 0x9e3779b97f4a7c15ULL);
		h ^= (k.stored_size + (uint64_t(k.crc) << 32)) * 0xc2b2ae3d27d4eb4fULL;
		h ^= (k.raw_size + k.codec) * 0x165667b19e3779f9ULL;
		return static_cast<size_t>(h ^ (h >> 29));
	}
};

// Admission by frequency (as TinyLFU): a segment's requests are counted, and one is kept only
// when asked for at least twice and, where room must be made, more often than each segment it
// would push out. A column larger than the cache scanned again and again then keeps the part
// that fits and is served from it, instead of replacing every segment on every scan (plain
// LRU: each scan copied all of it into the cache and found none of it there, 10% slower than
// no cache). Counts are halved now and then, so that what was hot an hour ago gives way. They
// outlive ClearSegments (16 K keys at most): after a pause, a segment read often before is kept
// again on its first request.
struct Cache {
	std::mutex lock;
	//! Most recently used first.
	std::list<std::pair<SegmentKey, std::shared_ptr<const ByteBuffer>>> entries;
	std::unordered_map<SegmentKey, decltype(entries)::iterator, KeyHash> index;
	std::unordered_map<SegmentKey, uint32_t, KeyHash> counts;
	std::deque<SegmentKey> counted_order;
	uint64_t requests = 0;
	size_t bytes = 0;

	//! Counts a request for `key`; returns its count.
	uint32_t Count(const SegmentKey &key) {
		if (++requests > 4 * kCountedLimit) {
			requests = 0;
			for (auto &c : counts) {
				c.second /= 2;
			}
		}
		auto it = counts.find(key);
		if (it != counts.end()) {
			return ++it->second;
		}
		counts.emplace(key, 1);
		counted_order.push_back(key);
		if (counted_order.size() > kCountedLimit) {
			counts.erase(counted_order.front());
			counted_order.pop_front();
		}
		return 1;
	}
	uint32_t CountOf(const SegmentKey &key) const {
		auto it = counts.find(key);
		return it == counts.end() ? 0 : it->second;
	}
	//! Whether room for `size` bytes can be made by pushing out only segments asked for less
	//! often than `count`; makes it when `evict`.
	bool MakeRoom(size_t size, uint32_t count, bool evict) {
		size_t freed = 0;
		for (auto it = entries.rbegin(); bytes - freed + size > kSegmentCacheLimit; ++it) {
			if (it == entries.rend() || CountOf(it->first) >= count) {
				return false;
			}
			freed += it->second->size();
		}
		while (evict && bytes + size > kSegmentCacheLimit) {
			auto &last = entries.back();
			bytes -= last.second->size();
			index.erase(last.first);
			entries.pop_back();
		}
		return true;
	}
};

Cache &TheCache() {
	// Leaked on purpose: readers on late threads may still look here during static destruction.
	static auto *c = new Cache();
	return *c;
}

bool Cacheable(const SegmentKey &key) {
	return key.source != 0 && key.raw_size >= kSegmentFrom && key.raw_size <= kSegmentUpTo;
}

} // namespace

bool LookupSegment(const SegmentKey &key, ByteBuffer &buf, size_t slack, bool &admit) {
	admit = false;
	if (!Cacheable(key)) {
		return false;
	}
	auto &cache = TheCache();
	std::shared_ptr<const ByteBuffer> body;
	{
		std::lock_guard<std::mutex> guard(cache.lock);
		auto it = cache.index.find(key);
		if (it == cache.index.end()) {
			const uint32_t count = cache.Count(key);
			admit = count >= 2 && cache.MakeRoom(key.raw_size, count, false);
			return false;
		}
		cache.Count(key);
		cache.entries.splice(cache.entries.begin(), cache.entries, it->second);
		body = it->second->second;
	}
	// Outside the lock: threads reading different segments copy at the same time.
	buf.resize(slack + body->size());
	std::memcpy(buf.data() + slack, body->data(), body->size());
	return true;
}

void OfferSegment(const SegmentKey &key, const uint8_t *body) {
	if (!Cacheable(key)) {
		return;
	}
	auto &cache = TheCache();
	auto copy = std::make_shared<const ByteBuffer>(body, body + key.raw_size); // outside the lock
	std::lock_guard<std::mutex> guard(cache.lock);
	if (cache.index.count(key) || !cache.MakeRoom(key.raw_size, cache.CountOf(key), true)) {
		return; // kept by another thread meanwhile, or no longer worth the room
	}
	cache.entries.emplace_front(key, std::move(copy));
	cache.index.emplace(key, cache.entries.begin());
	cache.bytes += key.raw_size;
}

size_t ClearSegments() {
	auto &cache = TheCache();
	decltype(cache.entries) dropped;
	size_t bytes;
	{
		std::lock_guard<std::mutex> guard(cache.lock);
		dropped.swap(cache.entries);
		cache.index.clear();
		bytes = cache.bytes;
		cache.bytes = 0;
	}
	return bytes; // freed here, outside the lock (a copy in progress keeps its body alive)
}

size_t CachedSegmentBytes() {
	auto &cache = TheCache();
	std::lock_guard<std::mutex> guard(cache.lock);
	return cache.bytes;
}

} // namespace vtx
