#include "file_tasks.hpp"

#include "duckdb/parallel/task.hpp"
#include "duckdb/parallel/task_scheduler.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <vector>

namespace vortex {

using namespace duckdb;

namespace {

//! What the calling thread and the tasks share. Tasks keep it alive: one DuckDB has already
//! dequeued may start after ForEachFile returned, and then finds nothing left to claim (it never
//! touches `work` then, which lives on the caller's stack).
struct FileTaskShared {
	FileTaskShared(idx_t count_p, const std::function<void(idx_t)> &work_p)
	    : count(count_p), work(work_p), errors(count_p) {
	}

	//! Claims files until none is left.
	void Drain() {
		for (idx_t i = next++; i < count; i = next++) {
			// Files after one known to fail need not be opened: the error raised is that of the
			// first failing file, and only files before it can still change which one that is.
			if (i < first_failed.load()) {
				try {
					work(i);
				} catch (...) {
					errors[i] = std::current_exception();
					auto failed = first_failed.load();
					while (i < failed && !first_failed.compare_exchange_weak(failed, i)) {
					}
				}
			}
			std::lock_guard<std::mutex> guard(lock);
			if (++finished == count) {
				all_finished.notify_all();
			}
		}
	}

	const idx_t count;
	const std::function<void(idx_t)> &work;
	std::atomic<idx_t> next {0};
	std::atomic<idx_t> first_failed {DConstants::INVALID_INDEX};
	std::vector<std::exception_ptr> errors; //! per file, each written by the one thread that claimed it
	std::mutex lock;
	std::condition_variable all_finished;
	idx_t finished = 0;
};

class FileTask : public Task {
public:
	explicit FileTask(std::shared_ptr<FileTaskShared> shared_p) : shared(std::move(shared_p)) {
	}
	TaskExecutionResult Execute(TaskExecutionMode) override {
		shared->Drain();
		return TaskExecutionResult::TASK_FINISHED;
	}
	string TaskType() const override {
		return "VortexFileTask";
	}

private:
	std::shared_ptr<FileTaskShared> shared;
};

} // namespace

void ForEachFile(ClientContext &context, idx_t count, const std::function<void(idx_t)> &work) {
	auto &scheduler = TaskScheduler::GetScheduler(context);
	// `threads` counts the thread that runs the query: it is one of the workers here.
	const idx_t threads = static_cast<idx_t>(std::max<int32_t>(1, scheduler.NumberOfThreads()));
	const idx_t helpers = std::min<idx_t>(threads, count) - (count ? 1 : 0);
	if (helpers == 0) {
		for (idx_t i = 0; i < count; i++) {
			work(i);
		}
		return;
	}
	auto shared = std::make_shared<FileTaskShared>(count, work);
	auto token = scheduler.CreateProducer();
	vector<shared_ptr<Task>> tasks;
	for (idx_t t = 0; t < helpers; t++) {
		tasks.push_back(make_shared_ptr<FileTask>(shared));
	}
	scheduler.ScheduleTasks(*token, tasks);
	shared->Drain();
	{
		// Files other threads claimed and are still reading. Waited for without spinning: on an
		// object store that is a request's latency.
		std::unique_lock<std::mutex> guard(shared->lock);
		shared->all_finished.wait(guard, [&] { return shared->finished == count; });
	}
	// Tasks no DuckDB thread took yet would only find every file claimed.
	shared_ptr<Task> task;
	while (scheduler.GetTaskFromProducer(*token, task)) {
		task.reset();
	}
	const auto failed = shared->first_failed.load();
	if (failed != DConstants::INVALID_INDEX) {
		std::rethrow_exception(shared->errors[failed]);
	}
}

} // namespace vortex
