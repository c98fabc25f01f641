// Encodes the zones of one ordered stream of rows on DuckDB's threads, and gives them back in
// the order they were filled.
//
// An ordered COPY through DuckDB's batch machinery (PhysicalBatchCopyToFile) first copies every
// chunk into a ColumnDataCollection per batch and only then hands the batch to the writer: on a
// TPC-H lineitem COPY that machinery took about as much CPU as the writer itself (its copies, and
// the page faults of the collections it keeps alive). Fed by one thread instead, in order, the
// writer copies each chunk once, into its zone, and the zones are encoded here in parallel: the
// feeding thread schedules each full zone as a task and goes on filling the next one, DuckDB's
// idle threads pick the tasks up, and the feeder runs queued ones itself when too many are in
// flight. Which COPYs are planned so is decided in copy_execution.cpp.
#pragma once
#include "zone_accumulator.hpp"
#include "duckdb.hpp"
#include "duckdb/parallel/task_scheduler.hpp"

#include <memory>

namespace vortex {

class OrderedZoneEncoder {
public:
	explicit OrderedZoneEncoder(duckdb::ClientContext &context);
	//! Work not yet started is dropped; tasks already running finish on their own.
	~OrderedZoneEncoder();
	OrderedZoneEncoder(const OrderedZoneEncoder &) = delete;
	OrderedZoneEncoder &operator=(const OrderedZoneEncoder &) = delete;

	//! Schedules the encoding of a full (or last) zone. Returns once fewer zones than threads
	//! are left in flight, having encoded some itself if need be; throws the first error of an
	//! earlier zone's encoding.
	void Submit(std::unique_ptr<ZoneAccumulator> zone);
	//! An accumulator whose zone has been encoded, emptied for reuse (its buffers are already the
	//! right size), or null.
	std::unique_ptr<ZoneAccumulator> Reuse();
	//! Moves the encoded zones that come next in order to `out`; with `all`, waits for (and helps
	//! with) every zone submitted.
	void TakeEncoded(std::vector<vtx::EncodedZone> &out, bool all);

	struct Shared;

private:
	//! Runs one of this stream's queued tasks on the calling thread, or waits for a zone being
	//! encoded elsewhere to be done; returns at once when nothing is in flight.
	void HelpOrWait();

	std::shared_ptr<Shared> shared;
	duckdb::TaskScheduler &scheduler;
	duckdb::unique_ptr<duckdb::ProducerToken> token;
	size_t max_in_flight;
};

} // namespace vortex
