#include "decode_pool.hpp"

namespace vortex {

namespace {

//! Chunks beyond this many bytes are freed rather than kept (one outsized zone should not pin
//! its memory for the rest of the scan).
constexpr size_t kMaxKeptBytes = size_t(64) << 20;

size_t Bytes(const vtx::DecodedColumn &c) {
	return c.fixed.capacity() + c.buffer.capacity() + c.codes.capacity() * sizeof(uint32_t) +
	       c.strings.capacity() * sizeof(vtx::StringRef);
}

} // namespace

std::shared_ptr<vtx::DecodedColumn> DecodePool::Get() {
	std::unique_ptr<vtx::DecodedColumn> chunk;
	{
		std::lock_guard<std::mutex> guard(lock_);
		if (!idle_.empty()) {
			chunk = std::move(idle_.back());
			idle_.pop_back();
		}
	}
	if (!chunk) {
		chunk.reset(new vtx::DecodedColumn());
	}
	std::weak_ptr<DecodePool> pool = shared_from_this();
	return std::shared_ptr<vtx::DecodedColumn>(chunk.release(), [pool](vtx::DecodedColumn *c) {
		if (auto self = pool.lock()) {
			self->Put(c);
		} else {
			delete c;
		}
	});
}

void DecodePool::Put(vtx::DecodedColumn *chunk) {
	std::unique_ptr<vtx::DecodedColumn> owned(chunk);
	if (Bytes(*owned) > kMaxKeptBytes) {
		return;
	}
	// What consumers derived from it (DuckDB vectors) and nested streams go now, not at reuse.
	owned->consumer_cache.reset();
	owned->children.clear();
	std::lock_guard<std::mutex> guard(lock_);
	if (idle_.size() < limit_) {
		idle_.push_back(std::move(owned));
	}
}

} // namespace vortex
