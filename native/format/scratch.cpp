#include "scratch.hpp"

#include "buffer_memory.hpp"
#include "file/segment_cache.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <thread>

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(__unix__) || defined(__APPLE__)
#include <sys/resource.h>
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
//! Under RegistryLock too.
std::vector<SharedScratch> &SharedCaches() {
	static auto *c = new std::vector<SharedScratch>();
	return *c;
}
std::atomic<size_t> activities {0};
//! Bytes allocated for zones (NoteHeapUse) and scratch bytes released since ReturnFreeHeap last
//! looked at the heap. mallinfo2 walks every arena, a cost (a tenth of a millisecond and more)
//! that queries answered from statistics, or decoding a zone or two, need not pay when they end:
//! the heap cannot have come to hold more free memory than was allocated since the last look.
std::atomic<size_t> heap_noted {0};
constexpr size_t kLookAbove = size_t(64) << 20;
//! Operations begun so far: a delayed trim is off when one began while it waited.
std::atomic<uint64_t> activities_begun {0};

//! CPU time this process has used (all threads); zero where it cannot be read.
std::chrono::microseconds ProcessCpuTime() {
#if defined(__unix__) || defined(__APPLE__)
	struct rusage usage;
	if (getrusage(RUSAGE_SELF, &usage) == 0) {
		return std::chrono::seconds(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
		       std::chrono::microseconds(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
	}
#endif
	return std::chrono::microseconds(0);
}

//! Releases idle threads' scratch buffers and empties the buffer and segment caches
//! (buffer_memory.hpp, segment_cache.hpp) once nothing has been in flight for a second after an
//! operation and the process itself has been quiet over that second. Not at once: a kept buffer
//! or cached block spares the next query a page fault per page, a kept segment its decompression,
//! and TPC-H's queries come one after another. A service between queries gets the memory back
//! within the delay; a busy one keeps reusing it (up to the caches' limits).
//! "Quiet" counts the process's CPU time, not only this package's operations: a service that runs
//! DuckDB's own tables or Parquet for a second between two .vtx queries is not idle, and
//! releasing then made the next .vtx query pay every page fault and decompression again (TPC-H
//! SF3 q13 on .vtx took 1.02 s after a Parquet and a table query, 0.52 s right after another .vtx
//! query). The bar is parallel work (kBusyCores): a thread polling for the caches to empty, in
//! a loop or now and then, does not keep them.
class DelayedTrim {
public:
	static DelayedTrim &Get() {
		// Leaked on purpose: its thread waits on it until the process ends.
		static auto *t = new DelayedTrim();
		return *t;
	}
	//! Called when the last operation in flight ends: trims after the delay unless something
	//! begins meanwhile. Wakes the trimming thread only when it is not already waiting out a
	//! delay: queries that follow each other each push its deadline back instead, and a wake-up
	//! per query was two context switches per query (a tenth of a small scan's CPU time).
	void Schedule() {
		const auto cpu = ProcessCpuTime();
		std::lock_guard<std::mutex> guard(lock);
		last_end_ = std::chrono::steady_clock::now();
		cpu_at_end_ = cpu;
		begun_at_end_ = activities_begun.load();
		if (!started_) {
			started_ = true;
			std::thread([this] { Run(); }).detach();
		}
		if (!armed_) {
			armed_ = true;
			wake_.notify_one();
		}
	}

private:
	static constexpr std::chrono::milliseconds kDelay {1000};
	//! Busy: more than one and a half cores' time spent over the delay, which takes work on
	//! several threads at once. DuckDB's parallel queries keep every thread busy (TPC-H SF3 on
	//! Parquet, two threads: 1.9 cores); one thread asking in a loop cannot get there (queries
	//! back to back on one connection, vortex_buffer_info or SELECT 42: 1.0-1.1 cores, Node's
	//! own threads included; a poll every 5 ms: 0.25).
	static constexpr double kBusyCores = 1.5;
	//! The bar; VORTEX_TEST_BUSY_CORES lowers it for a test that cannot count on two idle cores
	//! (read once, by this thread as it starts: nothing sets the environment while it reads).
	static double BusyCores() {
		const char *v = std::getenv("VORTEX_TEST_BUSY_CORES");
		const double cores = v ? std::atof(v) : 0;
		return cores > 0 ? cores : kBusyCores;
	}
	void Run() {
		const double busy_cores = BusyCores();
		std::unique_lock<std::mutex> guard(lock);
		while (true) {
			wake_.wait(guard, [this] { return armed_; });
			// Until a whole delay has passed since the last end.
			for (auto deadline = last_end_ + kDelay; std::chrono::steady_clock::now() < deadline;
			     deadline = last_end_ + kDelay) {
				wake_.wait_until(guard, deadline);
			}
			if (activities.load() != 0 || activities_begun.load() != begun_at_end_) {
				armed_ = false;
				continue; // something began since the last end and runs still: its end schedules again
			}
			const auto now = std::chrono::steady_clock::now();
			const auto cpu = ProcessCpuTime();
			const std::chrono::duration<double> spent = cpu - cpu_at_end_, waited = now - last_end_;
			if (spent.count() >= waited.count() * busy_cores) {
				// Busy with other work: another delay, measured from now.
				last_end_ = now;
				cpu_at_end_ = cpu;
				continue;
			}
			armed_ = false;
			guard.unlock();
			// The threads' buffers and the cached segments are freed first: their large blocks go
			// back to the buffer cache, which is emptied last (trimmed before them, it kept up to
			// its limit of their blocks until the next operation's end). The sum counts a block
			// twice when it passes through the cache; it only says when to look at the heap.
			const size_t dropped = ReleaseIdleScratch() + ClearSegments();
			ReturnFreeHeap(dropped + TrimBuffers());
			guard.lock();
		}
	}
	std::mutex lock;
	std::condition_variable wake_;
	bool started_ = false, armed_ = false;
	std::chrono::steady_clock::time_point last_end_;
	std::chrono::microseconds cpu_at_end_ {0};
	uint64_t begun_at_end_ = 0;
};
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
	bool last = false;
	{
		std::lock_guard<std::mutex> guard(thread.lock);
		thread.depth--;
		last = thread.depth == 0 && activities.load() == 0;
	}
	// Nothing in flight any more (the activity ended while this thread was busy): the delayed
	// release takes this thread's buffers too, as it would have, had the thread been idle.
	if (last) {
		DelayedTrim::Get().Schedule();
	}
}

ScratchActivity::ScratchActivity() {
	activities_begun++;
	activities++;
}

ScratchActivity::~ScratchActivity() {
	if (--activities == 0) {
		DelayedTrim::Get().Schedule();
	}
}

void RegisterSharedScratch(SharedScratch cache) {
	std::lock_guard<std::mutex> guard(RegistryLock());
	SharedCaches().push_back(cache);
}

size_t ReleaseIdleScratch() {
	size_t freed = 0;
	std::lock_guard<std::mutex> guard(RegistryLock());
	for (auto t : Registry()) {
		std::lock_guard<std::mutex> tguard(t->lock);
		freed += t->ReleaseLocked();
	}
	for (auto &cache : SharedCaches()) {
		freed += cache.clear();
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
	for (auto &cache : SharedCaches()) {
		held += cache.bytes();
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
