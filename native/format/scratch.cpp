#include "scratch.hpp"

#include <algorithm>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace vtx {

class ThreadScratch {
public:
	ThreadScratch();
	~ThreadScratch();
	static ThreadScratch &Current() {
		thread_local ThreadScratch scratch;
		return scratch;
	}
	//! Frees the slots' buffers if the thread is idle; the caller holds `lock`.
	size_t ReleaseLocked() {
		if (depth != 0) {
			return 0;
		}
		size_t freed = 0;
		for (auto slot : slots) {
			freed += slot->Bytes();
			slot->Release();
		}
		return freed;
	}
	std::mutex lock;
	int depth = 0;
	std::vector<ScratchSlotBase *> slots;
};

namespace {

// Leaked on purpose: thread_local destructors of late threads may run after static destruction.
std::mutex &RegistryLock() {
	static auto *m = new std::mutex();
	return *m;
}
std::vector<ThreadScratch *> &Registry() {
	static auto *r = new std::vector<ThreadScratch *>();
	return *r;
}
std::atomic<size_t> activities {0};
//! Bytes allocated for zones (NoteHeapUse) and scratch bytes released since ReturnFreeHeap last
//! looked at the heap. mallinfo2 walks every arena, a cost (a tenth of a millisecond and more)
//! that queries answered from statistics, or decoding a zone or two, need not pay when they end:
//! the heap cannot have come to hold more free memory than was allocated since the last look.
std::atomic<size_t> heap_noted {0};
constexpr size_t kLookAbove = size_t(64) << 20;
} // namespace

ThreadScratch::ThreadScratch() {
	std::lock_guard<std::mutex> guard(RegistryLock());
	Registry().push_back(this);
}

ThreadScratch::~ThreadScratch() {
	std::lock_guard<std::mutex> guard(RegistryLock());
	auto &r = Registry();
	r.erase(std::remove(r.begin(), r.end(), this), r.end());
}

ScratchSlotBase::ScratchSlotBase() : owner(&ThreadScratch::Current()) {
	std::lock_guard<std::mutex> guard(owner->lock);
	owner->slots.push_back(this);
}

void ScratchSlotBase::Unregister() {
	std::lock_guard<std::mutex> guard(owner->lock);
	if (registered) {
		auto &s = owner->slots;
		s.erase(std::remove(s.begin(), s.end(), this), s.end());
		registered = false;
	}
}

ScratchSlotBase::~ScratchSlotBase() {
	Unregister();
}

ScratchLease::ScratchLease() : thread(ThreadScratch::Current()) {
	std::lock_guard<std::mutex> guard(thread.lock);
	thread.depth++;
}

ScratchLease::~ScratchLease() {
	std::lock_guard<std::mutex> guard(thread.lock);
	thread.depth--;
	// Nothing in flight any more (the activity ended while this thread was busy): drop this
	// thread's buffers now rather than keep them until the next query ends.
	if (thread.depth == 0 && activities.load() == 0) {
		auto released = thread.ReleaseLocked();
		if (released > 0) {
			ReturnFreeHeap(released);
		}
	}
}

ScratchActivity::ScratchActivity() {
	activities++;
}

ScratchActivity::~ScratchActivity() {
	if (--activities == 0) {
		ReturnFreeHeap(ReleaseIdleScratch());
	}
}

size_t ReleaseIdleScratch() {
	size_t freed = 0;
	std::lock_guard<std::mutex> guard(RegistryLock());
	for (auto t : Registry()) {
		std::lock_guard<std::mutex> tguard(t->lock);
		freed += t->ReleaseLocked();
	}
	return freed;
}

size_t IdleScratchBytes() {
	size_t held = 0;
	std::lock_guard<std::mutex> guard(RegistryLock());
	for (auto t : Registry()) {
		std::lock_guard<std::mutex> tguard(t->lock);
		if (t->depth == 0) {
			for (auto slot : t->slots) {
				held += slot->Bytes();
			}
		}
	}
	return held;
}

size_t ScratchActivities() {
	return activities.load();
}

void NoteHeapUse(size_t bytes) {
	heap_noted.fetch_add(bytes, std::memory_order_relaxed);
}

void ReturnFreeHeap(size_t released) {
	if (heap_noted.fetch_add(released) + released < kLookAbove) {
		return;
	}
	heap_noted.store(0);
#if defined(__GLIBC__)
	// glibc keeps freed chunks inside its arenas, and after a large free it raises its mmap
	// threshold, so multi-megabyte zone buffers end up in arenas it does not hand back: hundreds
	// of MiB stayed resident after a large COPY in some runs. Trimming is a walk of the arenas
	// (milliseconds), so it runs only when the last operation ends with much memory held free.
	constexpr size_t kTrimAbove = size_t(32) << 20;
	size_t in_use = 0, free_held = 0;
	if (!HeapInfo(in_use, free_held) || free_held > kTrimAbove) {
		malloc_trim(0);
	}
#endif
}

bool HeapInfo(size_t &in_use, size_t &free_held) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
	auto info = mallinfo2();
	in_use = info.uordblks + info.hblkhd;
	free_held = info.fordblks;
	return true;
#else
	in_use = free_held = 0;
	return false;
#endif
}

} // namespace vtx
