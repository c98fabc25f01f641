// Per-thread reusable buffers that can be released from any thread.
//
// Encoding, decompression and COPY's zone buffers are kept per thread from one chunk to the
// next: fresh multi-megabyte buffers would cost a page fault per page on every chunk. Kept in
// plain thread_locals they would stay with DuckDB's worker threads forever, sized by the largest
// zone ever seen. Here each thread's buffers are registered, and a thread marks the moments it
// uses them (a ScratchLease); ReleaseIdleScratch frees the buffers of every thread not inside a
// lease. The DuckDB glue holds a ScratchActivity for each scan source and COPY in flight, and
// once the last one has ended and nothing else began for a second (and the process spent that
// second quietly, not running parallel queries of its own: scratch.cpp, DelayedTrim), every idle
// thread's buffers are released (a thread still inside a lease then has its own released after it
// leaves). Not at once: queries and COPYs that follow each other reuse the pages instead of
// faulting them in again (a COPY of TPC-H's part table spent a third of its time so).
#pragma once
#include <atomic>
#include <cstddef>
#include <mutex>
#include <vector>

namespace vtx {

class ThreadScratch;

class ScratchSlotBase {
public:
	virtual ~ScratchSlotBase();
	virtual size_t Bytes() const = 0;
	virtual void Release() = 0;

protected:
	ScratchSlotBase();
	//! Leaves the thread's list, so no other thread calls Release any more. Every derived
	//! class's destructor calls it first: by the time ~ScratchSlotBase runs, its buffer is gone.
	void Unregister();

private:
	ThreadScratch *owner;
	bool registered = true;
};

//! A buffer of this thread; declare it thread_local. Use it only inside a ScratchLease.
template <class T>
class ScratchSlot : public ScratchSlotBase {
public:
	T value;
	~ScratchSlot() override {
		Unregister();
	}
	size_t Bytes() const override {
		return value.capacity() * sizeof(typename T::value_type);
	}
	void Release() override {
		T().swap(value);
	}
};

//! Marks this thread as using its scratch buffers (re-entrant).
class ScratchLease {
public:
	ScratchLease();
	~ScratchLease();
	ScratchLease(const ScratchLease &) = delete;
	ScratchLease &operator=(const ScratchLease &) = delete;

private:
	ThreadScratch &thread;
};

//! Held while an operation that uses scratch buffers is in flight; the last one to end
//! releases every idle thread's buffers.
class ScratchActivity {
public:
	ScratchActivity();
	~ScratchActivity();
	ScratchActivity(const ScratchActivity &) = delete;
	ScratchActivity &operator=(const ScratchActivity &) = delete;
};

//! Frees the buffers of every thread that is not inside a lease; returns the bytes freed.
size_t ReleaseIdleScratch();
//! Bytes held by the buffers of threads not inside a lease (busy threads are not counted).
size_t IdleScratchBytes();

//! A cache of idle buffers shared by all threads (with its own lock), emptied with the threads'
//! buffers: `clear` frees what it holds and returns the bytes freed, `bytes` tells them.
struct SharedScratch {
	size_t (*clear)();
	size_t (*bytes)();
};
//! Adds a cache for ReleaseIdleScratch and IdleScratchBytes to cover, for the process's life.
void RegisterSharedScratch(SharedScratch cache);
//! Number of ScratchActivity objects alive.
size_t ScratchActivities();
//! Called wherever zone-sized buffers are allocated (a chunk decoded or encoded), with their
//! size: only such allocations can leave the C heap holding much free memory.
void NoteHeapUse(size_t bytes);
//! Hands the C heap's free pages back to the OS when it holds much free memory (glibc only),
//! looking at it only once 64 MiB were noted or `released` (scratch bytes just freed) since
//! the last look.
void ReturnFreeHeap(size_t released = 0);
//! The C heap (glibc malloc): bytes in use and bytes free but held; false elsewhere.
bool HeapInfo(size_t &in_use, size_t &free_held);

} // namespace vtx
