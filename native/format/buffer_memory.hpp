// Where the format's buffers (read buffers, decoded chunks, COPY's zone buffers) get their memory:
// a process-wide cache of large blocks in front of malloc.
//
// A decoded chunk is a megabyte or so and lives for one zone. glibc serves such sizes from fresh
// mappings, or from arenas that the end of each operation trims (scratch.cpp), so every zone of
// every query paid a page fault and the kernel's zeroing per page: a third of the kernel time
// and more than a tenth of all the time of TPC-H on .vtx. Freed large blocks are kept here, by
// size class, and handed out again, across zones and across queries; they go back to the system
// once nothing has been in flight for a moment (scratch.cpp, DelayedTrim), so a service between
// queries holds none of them, and at most kCachedBytesLimit while busy.
#pragma once
#include <cstddef>

namespace vtx {

void *AllocateBuffer(size_t bytes);
void ReleaseBuffer(void *pointer, size_t bytes);
//! Frees every cached block; returns the bytes freed.
size_t TrimBuffers();
//! Bytes of freed blocks held for reuse.
size_t CachedBufferBytes();

} // namespace vtx
