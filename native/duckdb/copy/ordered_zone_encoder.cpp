#include "ordered_zone_encoder.hpp"

#include "duckdb/parallel/task.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>

namespace vortex {

using namespace duckdb;

//! What the tasks touch: kept alive by each of them, since a task DuckDB has already dequeued
//! may still run after the COPY failed or was interrupted and the encoder is gone.
struct OrderedZoneEncoder::Shared {
	std::mutex lock;
	std::condition_variable finished;
	//! Encoded zones by the order they were submitted in, until taken.
	std::map<uint64_t, vtx::EncodedZone> encoded;
	std::vector<std::unique_ptr<ZoneAccumulator>> reusable;
	uint64_t submitted = 0;
	uint64_t taken = 0;
	size_t in_flight = 0;
	std::exception_ptr error;
	bool cancelled = false;
};

namespace {

//! A zone being encoded, a group of its columns per task.
struct ZoneJob {
	uint64_t order;
	std::unique_ptr<ZoneAccumulator> zone;
	vtx::EncodedZone encoded;
	std::atomic<size_t> groups_left {0};
};

class EncodeColumnsTask : public Task {
public:
	EncodeColumnsTask(std::shared_ptr<OrderedZoneEncoder::Shared> shared_p, std::shared_ptr<ZoneJob> job_p, idx_t begin_p,
	                  idx_t end_p)
	    : shared(std::move(shared_p)), job(std::move(job_p)), begin(begin_p), end(end_p) {
	}

	TaskExecutionResult Execute(TaskExecutionMode) override {
		std::exception_ptr error;
		bool skip;
		{
			std::lock_guard<std::mutex> guard(shared->lock);
			skip = shared->cancelled || shared->error;
		}
		if (!skip) {
			try {
				for (idx_t c = begin; c < end; c++) {
					job->zone->EncodeColumn(c, job->encoded);
				}
			} catch (...) {
				error = std::current_exception();
			}
		}
		if (error) {
			std::lock_guard<std::mutex> guard(shared->lock);
			if (!shared->error) {
				shared->error = error;
			}
		}
		if (--job->groups_left == 0) {
			Finish(skip || error);
		}
		return TaskExecutionResult::TASK_FINISHED;
	}

	string TaskType() const override {
		return "VortexEncodeColumns";
	}

private:
	//! The zone's last group is done: the zone is published, its accumulator kept for reuse.
	void Finish(bool failed) {
		std::lock_guard<std::mutex> guard(shared->lock);
		failed = failed || shared->error;
		if (!failed) {
			job->zone->Reset();
			shared->reusable.push_back(std::move(job->zone));
		}
		shared->encoded.emplace(job->order, std::move(job->encoded));
		shared->in_flight--;
		shared->finished.notify_all();
	}

	std::shared_ptr<OrderedZoneEncoder::Shared> shared;
	std::shared_ptr<ZoneJob> job;
	idx_t begin;
	idx_t end;
};

//! Columns grouped into tasks of at least this many bytes to read: a task per narrow column of a
//! small zone would cost more to schedule than to run.
constexpr uint64_t kBytesPerTask = uint64_t(1) << 20;

} // namespace

OrderedZoneEncoder::OrderedZoneEncoder(ClientContext &context)
    : shared(std::make_shared<Shared>()), scheduler(TaskScheduler::GetScheduler(context)),
      token(scheduler.CreateProducer()) {
	// One zone a thread being encoded, one more queued for whichever thread frees up first: the
	// raw zones held at once (tens of MiB each for wide text) stay bounded by the thread count.
	max_in_flight = size_t(std::max<int32_t>(1, scheduler.NumberOfThreads())) + 1;
}

OrderedZoneEncoder::~OrderedZoneEncoder() {
	{
		std::lock_guard<std::mutex> guard(shared->lock);
		shared->cancelled = true;
	}
	// Queued tasks would otherwise wait for a DuckDB thread to run them for nothing.
	shared_ptr<Task> task;
	while (scheduler.GetTaskFromProducer(*token, task)) {
		task.reset();
	}
}

void OrderedZoneEncoder::Submit(std::unique_ptr<ZoneAccumulator> zone) {
	auto job = std::make_shared<ZoneJob>();
	{
		std::lock_guard<std::mutex> guard(shared->lock);
		if (shared->error) {
			std::rethrow_exception(shared->error);
		}
		job->order = shared->submitted++;
		shared->in_flight++;
	}
	// The columns of a zone are encoded side by side too, so that a COPY of few zones (or its
	// last one) keeps every thread busy.
	const idx_t columns = zone->ColumnCount();
	zone->StartZone(job->encoded);
	job->zone = std::move(zone);
	vector<shared_ptr<Task>> tasks;
	idx_t begin = 0;
	uint64_t bytes = 0;
	for (idx_t c = 0; c < columns; c++) {
		bytes += job->zone->ColumnBytes(c);
		if (bytes >= kBytesPerTask || c + 1 == columns) {
			tasks.push_back(make_shared_ptr<EncodeColumnsTask>(shared, job, begin, c + 1));
			begin = c + 1;
			bytes = 0;
		}
	}
	if (tasks.empty()) { // a table of no columns cannot be copied; kept whole anyway
		tasks.push_back(make_shared_ptr<EncodeColumnsTask>(shared, job, 0, 0));
	}
	job->groups_left = tasks.size();
	scheduler.ScheduleTasks(*token, tasks);
	for (;;) {
		{
			std::lock_guard<std::mutex> guard(shared->lock);
			if (shared->in_flight < max_in_flight) {
				return;
			}
		}
		HelpOrWait();
	}
}

std::unique_ptr<ZoneAccumulator> OrderedZoneEncoder::Reuse() {
	std::lock_guard<std::mutex> guard(shared->lock);
	if (shared->reusable.empty()) {
		return nullptr;
	}
	auto zone = std::move(shared->reusable.back());
	shared->reusable.pop_back();
	return zone;
}

void OrderedZoneEncoder::TakeEncoded(std::vector<vtx::EncodedZone> &out, bool all) {
	for (;;) {
		{
			std::lock_guard<std::mutex> guard(shared->lock);
			if (shared->error) {
				std::rethrow_exception(shared->error);
			}
			for (auto it = shared->encoded.begin(); it != shared->encoded.end() && it->first == shared->taken;
			     it = shared->encoded.erase(it)) {
				out.push_back(std::move(it->second));
				shared->taken++;
			}
			if (!all || shared->taken == shared->submitted) {
				return;
			}
		}
		HelpOrWait();
	}
}

void OrderedZoneEncoder::HelpOrWait() {
	shared_ptr<Task> task;
	if (scheduler.GetTaskFromProducer(*token, task)) {
		task->Execute(TaskExecutionMode::PROCESS_ALL);
		return;
	}
	// Every queued task has been taken by a DuckDB thread: wait for a zone to be done.
	std::unique_lock<std::mutex> guard(shared->lock);
	const auto before = shared->in_flight;
	shared->finished.wait(guard, [&] { return shared->in_flight < before || before == 0; });
}

} // namespace vortex
