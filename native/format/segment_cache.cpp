#include "segment_cache.hpp"

#include <cstring>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

namespace vtx {

namespace {

//! Segments smaller than this are cheap to read again; larger ones would crowd out the rest.
constexpr size_t kSegmentFrom = size_t(16) << 10;
constexpr size_t kSegmentUpTo = size_t(64) << 20;
//! Keys requested once and not (yet) admitted: enough for every segment of several large files.
constexpr size_t kSeenLimit = 1 << 14;

struct KeyHash {
	size_t operator()(const SegmentKey &k) const {
		uint64_t h = k.source ^ (k.offset * 0x9e3779b97f4a7c15ULL);
		h ^= (k.stored_size + (uint64_t(k.crc) << 32)) * 0xc2b2ae3d27d4eb4fULL;
		h ^= (k.raw_size + k.codec) * 0x165667b19e3779f9ULL;
		return static_cast<size_t>(h ^ (h >> 29));
	}
};

struct Body {
	explicit Body(size_t n) : bytes(new uint8_t[n]), size(n) {
	}
	std::unique_ptr<uint8_t[]> bytes;
	size_t size;
};

struct Cache {
	std::mutex lock;
	//! Most recently used first.
	std::list<std::pair<SegmentKey, std::shared_ptr<const Body>>> entries;
	std::unordered_map<SegmentKey, decltype(entries)::iterator, KeyHash> index;
	std::unordered_set<SegmentKey, KeyHash> seen;
	std::deque<SegmentKey> seen_order;
	size_t bytes = 0;

	//! Whether `key` was requested before; notes it otherwise.
	bool Seen(const SegmentKey &key) {
		if (!seen.insert(key).second) {
			return true;
		}
		seen_order.push_back(key);
		if (seen_order.size() > kSeenLimit) {
			seen.erase(seen_order.front());
			seen_order.pop_front();
		}
		return false;
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
	std::shared_ptr<const Body> body;
	{
		std::lock_guard<std::mutex> guard(cache.lock);
		auto it = cache.index.find(key);
		if (it == cache.index.end()) {
			admit = cache.Seen(key);
			return false;
		}
		cache.entries.splice(cache.entries.begin(), cache.entries, it->second);
		body = it->second->second;
	}
	// Outside the lock: threads reading different segments copy at the same time.
	buf.resize(slack + body->size);
	std::memcpy(buf.data() + slack, body->bytes.get(), body->size);
	return true;
}

void OfferSegment(const SegmentKey &key, const uint8_t *body) {
	if (!Cacheable(key)) {
		return;
	}
	auto &cache = TheCache();
	// Copied outside the lock.
	auto copy = std::make_shared<Body>(key.raw_size);
	std::memcpy(copy->bytes.get(), body, key.raw_size);
	std::lock_guard<std::mutex> guard(cache.lock);
	if (cache.index.count(key)) {
		return; // another thread kept it meanwhile
	}
	while (!cache.entries.empty() && cache.bytes + key.raw_size > kSegmentCacheLimit) {
		auto &last = cache.entries.back();
		cache.bytes -= last.second->size;
		cache.index.erase(last.first);
		cache.entries.pop_back();
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
