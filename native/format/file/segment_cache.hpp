// Decompressed segments kept for the next query over the same file.
//
// A compressed segment (long text, mostly) is read, checked and decompressed again by every
// query that touches it: zstd took a fifth of TPC-H q13's CPU on .vtx, where DuckDB's tables
// read the same strings from memory. Segments a query asks for a second time are kept here,
// decompressed, and copied out to later readers instead (a memcpy, several times cheaper than
// zstd). Admission on the second request spares a one-off scan of a large file from filling
// the cache; once it is full, a segment gets in only by pushing out less requested ones, least
// recently used first, so a column larger than kSegmentCacheLimit keeps the part that fits.
//
// Entries are keyed by the source's identity (InputSource::CacheIdentity: the path, size and
// footer checksum of the file as opened) and the segment's place, sizes and checksum, so a
// file replaced between queries is read afresh. The cache is emptied with the other kept
// buffers once nothing has been in flight for a second (scratch.cpp, DelayedTrim).
#pragma once
#include "../column.hpp"

#include <cstddef>
#include <cstdint>

namespace vtx {

constexpr size_t kSegmentCacheLimit = size_t(256) << 20;

struct SegmentKey {
	uint64_t source;
	uint64_t offset;
	uint64_t stored_size;
	uint64_t raw_size;
	uint32_t crc;
	uint8_t codec;
	bool operator==(const SegmentKey &o) const {
		return source == o.source && offset == o.offset && stored_size == o.stored_size && raw_size == o.raw_size &&
		       crc == o.crc && codec == o.codec;
	}
};

//! Copies the cached body of `key` into `buf`, `slack` bytes in (resizing it), and returns true;
//! when not cached, notes the request and says in `admit` whether the segment was asked for
//! before (then worth offering once read).
bool LookupSegment(const SegmentKey &key, ByteBuffer &buf, size_t slack, bool &admit);
//! Keeps a decompressed body just read for `key` (LookupSegment said to admit it).
void OfferSegment(const SegmentKey &key, const uint8_t *body);
//! Frees every cached segment; returns the bytes freed.
size_t ClearSegments();
//! Bytes of cached segments.
size_t CachedSegmentBytes();

} // namespace vtx
