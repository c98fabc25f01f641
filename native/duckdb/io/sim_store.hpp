// A simulated object store for tests and benchmarks (issue 58): a DuckDB FileSystem for
// `simstore://<absolute local path>` URLs that serves local files the way httpfs serves S3.
// Files are remote (OnDiskFile false, so no mmap and DuckDB's remote-file strategies), seekable,
// and every read is one positional range request (a GET); a glob is an object store's LIST and
// hands its listing (size, ETag, last-modified) to OpenFile in the OpenFileInfo; opening a file
// without them costs a HEAD. It counts requests by kind and bytes read, sleeps a configurable
// latency per request plus bytes / bandwidth per stream (both 0 by default), and injects faults:
// a failed GET, a short GET, an object changed in the middle of a query. It also records the most
// requests in flight at once, which shows whether a reader overlaps them. Read-only: opening for
// writing is refused with an error that says so.
//
// Off by default: EnableSimStore registers it as a subsystem of a database's VirtualFileSystem
// (the addon's test hooks, native/addon/test_hooks.cpp, are the only caller), so that
// read_parquet('simstore://...') and vortex_scan('simstore://...') both go through it.
#pragma once
#include "duckdb.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace vortex {

struct SimStoreCounters {
	uint64_t head = 0;
	uint64_t get = 0;
	uint64_t list = 0;
	//! Bytes the GETs delivered.
	uint64_t bytes = 0;
	//! The most requests in flight at once: above 1 only where a reader overlaps its requests.
	uint64_t concurrent = 0;
};

enum class SimStoreFaultKind : uint8_t {
	NONE,
	//! The GET fails: an IOException naming the URL and the range, as httpfs reports an HTTP error.
	FAIL,
	//! The GET delivers only the first half of its range and reports no error: the rest of the
	//! caller's buffer is zeros (a positional read must return every byte, so this is the worst a
	//! store or a proxy can do silently); a sequential read returns the shorter count.
	SHORT_READ,
	//! From this GET on the object holds the bytes of another local file (`replacement`): a new
	//! ETag, size and last-modified for HEADs and LISTs. With `check_etag`, a GET through a handle
	//! opened before fails as httpfs's ETag check does; without, it serves the new bytes.
	CHANGE,
};

struct SimStoreFault {
	SimStoreFaultKind kind = SimStoreFaultKind::NONE;
	//! GETs (of `object`, where given) let through before the one the fault hits.
	uint64_t after = 0;
	//! The local path of the object the fault is for; empty: any object.
	std::string object;
	std::string replacement;
	bool check_etag = true;
};

//! A store's state, shared by the file system (owned by the database's VirtualFileSystem) and the
//! hooks that configure and read it.
class SimStore {
public:
	static constexpr const char *kPrefix = "simstore://";

	//! Latency per request in milliseconds; bandwidth per stream in bytes per second (0: unlimited).
	void Configure(double latency_ms, double bandwidth_bytes_per_second);
	SimStoreCounters Counters() const;
	//! Zeroes the counters and clears the faults and replacements.
	void Reset();
	//! Arms one fault (replacing any armed before).
	void InjectFault(SimStoreFault fault);

	// Used by the file system.
	//! The simulated time of one request that moves `bytes`, counted as in flight meanwhile.
	void Wait(uint64_t bytes);
	void CountHead() {
		head++;
	}
	void CountList(uint64_t pages) {
		list += pages;
	}
	void CountGet(uint64_t delivered) {
		get++;
		bytes += delivered;
	}
	//! The fault the next GET of `object` takes (NONE mostly); advances the armed fault's count.
	SimStoreFault NextGet(const std::string &object);
	struct Backing {
		//! The local file holding the object's bytes now (the object itself unless a CHANGE replaced it).
		std::string path;
		//! Whether a GET through a handle opened on another version fails (httpfs's ETag check).
		bool check_etag = true;
	};
	Backing BackingOf(const std::string &object) const;

private:
	std::atomic<uint64_t> head {0}, get {0}, list {0}, bytes {0};
	std::atomic<uint64_t> in_flight {0}, most_in_flight {0};
	std::atomic<uint64_t> latency_us {0};
	std::atomic<double> bandwidth {0};
	mutable std::mutex lock;
	SimStoreFault fault;
	std::unordered_map<std::string, Backing> replaced;
};

//! Registers simstore:// in the database's VirtualFileSystem, once; its state thereafter.
std::shared_ptr<SimStore> EnableSimStore(duckdb::DatabaseInstance &db);
//! The store of a database where it is enabled, else null.
std::shared_ptr<SimStore> FindSimStore(duckdb::DatabaseInstance &db);

} // namespace vortex
