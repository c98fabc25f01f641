#include "sim_store.hpp"

#include "../duckdb_compat.hpp"
#include "duckdb/common/file_opener.hpp"
#include "duckdb/common/open_file_info.hpp"
#include "duckdb/common/string_util.hpp"
#include "duckdb/common/types/hash.hpp"
#include "duckdb/main/database.hpp"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <thread>

namespace vortex {

using namespace duckdb;

void SimStore::Configure(double latency_ms, double bandwidth_bytes_per_second) {
	latency_us = latency_ms > 0 ? static_cast<uint64_t>(latency_ms * 1000.0) : 0;
	bandwidth = bandwidth_bytes_per_second > 0 ? bandwidth_bytes_per_second : 0;
}

SimStoreCounters SimStore::Counters() const {
	SimStoreCounters c;
	c.head = head;
	c.get = get;
	c.list = list;
	c.bytes = bytes;
	c.concurrent = most_in_flight;
	return c;
}

void SimStore::Reset() {
	head = 0;
	get = 0;
	list = 0;
	bytes = 0;
	most_in_flight = in_flight.load();
	std::lock_guard<std::mutex> guard(lock);
	fault = SimStoreFault();
	replaced.clear();
}

void SimStore::InjectFault(SimStoreFault f) {
	std::lock_guard<std::mutex> guard(lock);
	fault = std::move(f);
}

void SimStore::Wait(uint64_t n) {
	const auto now = ++in_flight;
	auto most = most_in_flight.load();
	while (now > most && !most_in_flight.compare_exchange_weak(most, now)) {
	}
	double us = static_cast<double>(latency_us.load());
	const double bw = bandwidth.load();
	if (bw > 0) {
		us += static_cast<double>(n) * 1e6 / bw;
	}
	if (us >= 1) {
		std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(us)));
	}
	in_flight--;
}

SimStoreFault SimStore::NextGet(const std::string &object) {
	std::lock_guard<std::mutex> guard(lock);
	if (fault.kind == SimStoreFaultKind::NONE || (!fault.object.empty() && fault.object != object)) {
		return SimStoreFault();
	}
	if (fault.after > 0) {
		fault.after--;
		return SimStoreFault();
	}
	auto hit = fault;
	hit.object = object;
	fault = SimStoreFault();
	if (hit.kind == SimStoreFaultKind::CHANGE) {
		replaced[object] = Backing {hit.replacement, hit.check_etag};
	}
	return hit;
}

SimStore::Backing SimStore::BackingOf(const std::string &object) const {
	std::lock_guard<std::mutex> guard(lock);
	auto it = replaced.find(object);
	return it == replaced.end() ? Backing {object, true} : it->second;
}

namespace {

//! What a HEAD or a LIST says of an object.
struct ObjectInfo {
	bool exists = false;
	int64_t size = 0;
	timestamp_t last_modified;
	std::string etag;
};

//! The object's size, last-modified time and an ETag (the backing file's path, size and
//! modification time in nanoseconds: a rewrite or a replacement changes it).
ObjectInfo Describe(const std::string &backing) {
	namespace fs = std::filesystem;
	ObjectInfo info;
	std::error_code ec;
	if (!fs::is_regular_file(backing, ec)) {
		return info;
	}
	const auto size = fs::file_size(backing, ec);
	const auto written = fs::last_write_time(backing, ec);
	if (ec) {
		return info;
	}
	info.exists = true;
	info.size = static_cast<int64_t>(size);
	// file_time_type's epoch is unspecified before C++20; the ETag only needs to change with it.
	const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(written.time_since_epoch()).count();
	const auto since_1970 = std::chrono::duration_cast<std::chrono::microseconds>(
	    written - fs::file_time_type::clock::now() + std::chrono::system_clock::now().time_since_epoch());
	info.last_modified = Timestamp::FromEpochMicroSeconds(since_1970.count());
	const auto h = CombineHash(Hash(backing.c_str(), backing.size()),
	                           CombineHash(Hash(static_cast<uint64_t>(size)), Hash(static_cast<int64_t>(ns))));
	char hex[24];
	std::snprintf(hex, sizeof(hex), "\"%016llx\"", static_cast<unsigned long long>(h));
	info.etag = hex;
	return info;
}

class SimStoreHandle : public FileHandle {
public:
	SimStoreHandle(FileSystem &fs, const std::string &url, std::string object, FileOpenFlags flags, ObjectInfo info)
	    : FileHandle(fs, url, flags), object(std::move(object)), info(std::move(info)) {
	}
	void Close() override {
	}

	const std::string object;
	const ObjectInfo info;
	idx_t position = 0;

	//! A local handle on the object's current backing file, reopened when a CHANGE replaced it.
	std::shared_ptr<FileHandle> Backing(FileSystem &local, const std::string &path) {
		std::lock_guard<std::mutex> guard(lock);
		if (!backing || backing_path != path) {
			backing = std::shared_ptr<FileHandle>(
			    local.OpenFile(path, FileFlags::FILE_FLAGS_READ | FileFlags::FILE_FLAGS_PARALLEL_ACCESS).release());
			backing_path = path;
		}
		return backing;
	}

private:
	std::mutex lock;
	std::shared_ptr<FileHandle> backing;
	std::string backing_path;
};

class SimStoreFileSystem : public compat::UrlFileSystem {
public:
	explicit SimStoreFileSystem(std::shared_ptr<SimStore> store) : store(std::move(store)), local(CreateLocal()) {
	}

	std::string GetName() const override {
		return "SimStoreFileSystem";
	}
	bool CanHandleFile(const string &path) override {
		return StringUtil::StartsWith(path, SimStore::kPrefix);
	}
	bool CanSeek() override {
		return true;
	}
	bool OnDiskFile(FileHandle &) override {
		return false;
	}

	unique_ptr<FileHandle> OpenFile(const string &path, FileOpenFlags flags, optional_ptr<FileOpener> opener) override {
		return OpenFileExtended(OpenFileInfo(path), flags, opener);
	}

	int64_t GetFileSize(FileHandle &handle) override {
		return Sim(handle).info.size;
	}
	timestamp_t GetLastModifiedTime(FileHandle &handle) override {
		return Sim(handle).info.last_modified;
	}
	string GetVersionTag(FileHandle &handle) override {
		return Sim(handle).info.etag;
	}
	FileType GetFileType(FileHandle &) override {
		return FileType::FILE_TYPE_REGULAR;
	}

	void Read(FileHandle &handle, void *buffer, int64_t nr_bytes, idx_t location) override {
		const auto n = static_cast<idx_t>(nr_bytes);
		const auto got = Get(Sim(handle), static_cast<data_ptr_t>(buffer), n, location);
		if (got < n) {
			// A short GET the store did not report: the bytes it did not send stay zeros.
			std::memset(static_cast<data_ptr_t>(buffer) + got, 0, n - got);
		}
	}
	int64_t Read(FileHandle &handle, void *buffer, int64_t nr_bytes) override {
		auto &h = Sim(handle);
		const auto size = static_cast<idx_t>(h.info.size);
		const auto n = std::min<idx_t>(static_cast<idx_t>(nr_bytes), h.position < size ? size - h.position : 0);
		if (n == 0) {
			return 0;
		}
		const auto got = Get(h, static_cast<data_ptr_t>(buffer), n, h.position);
		h.position += got;
		return static_cast<int64_t>(got);
	}
	void Write(FileHandle &handle, void *, int64_t, idx_t) override {
		throw ReadOnly(handle.path);
	}
	int64_t Write(FileHandle &handle, void *, int64_t) override {
		throw ReadOnly(handle.path);
	}

	void Seek(FileHandle &handle, idx_t location) override {
		Sim(handle).position = location;
	}
	void Reset(FileHandle &handle) override {
		Sim(handle).position = 0;
	}
	idx_t SeekPosition(FileHandle &handle) override {
		return Sim(handle).position;
	}

	bool FileExists(const string &path, optional_ptr<FileOpener>) override {
		return Head(path).exists;
	}
	bool IsPipe(const string &, optional_ptr<FileOpener>) override {
		return false;
	}
	//! An object store has no directories.
	bool DirectoryExists(const string &, optional_ptr<FileOpener>) override {
		return false;
	}
	void CreateDirectory(const string &path, optional_ptr<FileOpener>) override {
		throw ReadOnly(path);
	}
	void RemoveFile(const string &path, optional_ptr<FileOpener>) override {
		throw ReadOnly(path);
	}
	void MoveFile(const string &source, const string &, optional_ptr<FileOpener>) override {
		throw ReadOnly(source);
	}

	//! A LIST of the prefix (one request per 1,000 keys, as S3 pages them), filtered by the
	//! pattern, each key with its size, ETag and last-modified time. A path without a wildcard is
	//! returned as it is, with no request, as httpfs does.
	vector<OpenFileInfo> Glob(const string &path, FileOpener *) override {
		const auto pattern = ObjectOf(path);
		if (!HasGlob(pattern)) {
			return {OpenFileInfo(path)};
		}
		std::map<string, ObjectInfo> found;
		for (auto &entry : local->Glob(pattern)) {
			auto info = Describe(store->BackingOf(entry.path).path);
			if (info.exists) {
				found.emplace(entry.path, std::move(info));
			}
		}
		const uint64_t pages = std::max<uint64_t>(1, (found.size() + 999) / 1000);
		for (uint64_t p = 0; p < pages; p++) {
			store->CountList(1);
			store->Wait(0);
		}
		vector<OpenFileInfo> result;
		for (auto &e : found) {
			OpenFileInfo file(SimStore::kPrefix + e.first);
			file.extended_info = make_shared_ptr<ExtendedOpenFileInfo>();
			auto &options = file.extended_info->options;
			options.emplace("file_size", Value::BIGINT(e.second.size));
			options.emplace("last_modified", Value::TIMESTAMP(e.second.last_modified));
			options.emplace("etag", Value(e.second.etag));
			result.push_back(std::move(file));
		}
		return result;
	}

protected:
	bool SupportsOpenFileExtended() const override {
		return true;
	}

	//! Opens without a request where the listing gave the object's size (and ETag and time);
	//! else a HEAD.
	unique_ptr<FileHandle> OpenFileExtended(const OpenFileInfo &file, FileOpenFlags flags,
	                                        optional_ptr<FileOpener>) override {
		if (flags.OpenForWriting()) {
			throw ReadOnly(file.path);
		}
		const auto object = ObjectOf(file.path);
		ObjectInfo info;
		if (!Listed(file, info)) {
			info = Head(file.path);
		}
		if (!info.exists) {
			if (flags.ReturnNullIfNotExists()) {
				return nullptr;
			}
			throw IOException("simstore: HEAD %s: 404 Not Found (no such object)", file.path);
		}
		return make_uniq<SimStoreHandle>(*this, file.path, object, flags, std::move(info));
	}

private:
	std::shared_ptr<SimStore> store;
	unique_ptr<FileSystem> local;

	static SimStoreHandle &Sim(FileHandle &handle) {
		return handle.Cast<SimStoreHandle>();
	}

	static PermissionException ReadOnly(const string &path) {
		return PermissionException("simstore: cannot write \"%s\": the simulated object store is read-only "
		                               "(write the local file, then read it through simstore://)",
		                               path);
	}

	static string ObjectOf(const string &url) {
		auto object = url.substr(std::strlen(SimStore::kPrefix));
		if (object.empty() || object[0] != '/') {
			throw IOException("simstore: \"%s\" must name an absolute local path (simstore:///dir/file)", url);
		}
		return object;
	}

	static bool Listed(const OpenFileInfo &file, ObjectInfo &info) {
		if (!file.extended_info) {
			return false;
		}
		auto &options = file.extended_info->options;
		auto size = options.find("file_size");
		auto etag = options.find("etag");
		auto modified = options.find("last_modified");
		if (size == options.end() || etag == options.end() || modified == options.end()) {
			return false;
		}
		info.exists = true;
		info.size = size->second.GetValue<int64_t>();
		info.etag = StringValue::Get(etag->second);
		info.last_modified = modified->second.GetValue<timestamp_t>();
		return true;
	}

	ObjectInfo Head(const string &url) {
		const auto object = ObjectOf(url);
		store->CountHead();
		store->Wait(0);
		return Describe(store->BackingOf(object).path);
	}

	//! One range GET of [location, location + n): the bytes delivered (n unless a fault shortened it).
	idx_t Get(SimStoreHandle &h, data_ptr_t buffer, idx_t n, idx_t location) {
		auto fault = store->NextGet(h.object);
		if (fault.kind == SimStoreFaultKind::FAIL) {
			store->CountGet(0);
			store->Wait(0);
			throw IOException("simstore: GET %s (bytes=%llu-%llu): 503 Service Unavailable (injected fault)", h.path,
			                  location, location + n - 1);
		}
		// Every response carries the object's ETag; httpfs fails a read whose ETag differs from the
		// one it opened the file with.
		const auto backing = store->BackingOf(h.object);
		const auto now = Describe(backing.path);
		if (backing.check_etag && now.exists && now.etag != h.info.etag) {
			store->CountGet(0);
			store->Wait(0);
			throw IOException("simstore: GET %s: the ETag was %s when the file was opened and is now %s: the file "
			                  "changed during the query",
			                  h.path, h.info.etag, now.etag);
		}
		if (!now.exists || location + n > static_cast<idx_t>(now.size)) {
			store->CountGet(0);
			store->Wait(0);
			throw IOException("simstore: GET %s (bytes=%llu-%llu): 416 Range Not Satisfiable (the object has %lld bytes)",
			                  h.path, location, location + n - 1, static_cast<long long>(now.size));
		}
		const idx_t deliver = fault.kind == SimStoreFaultKind::SHORT_READ ? n / 2 : n;
		if (deliver) {
			h.Backing(*local, backing.path)->Read(buffer, deliver, location);
		}
		store->CountGet(deliver);
		store->Wait(deliver);
		return deliver;
	}

};

std::mutex registry_lock;
std::map<const DatabaseInstance *, std::weak_ptr<SimStore>> registry;

} // namespace

std::shared_ptr<SimStore> FindSimStore(DatabaseInstance &db) {
	std::lock_guard<std::mutex> guard(registry_lock);
	auto it = registry.find(&db);
	return it == registry.end() ? nullptr : it->second.lock();
}

std::shared_ptr<SimStore> EnableSimStore(DatabaseInstance &db) {
	std::lock_guard<std::mutex> guard(registry_lock);
	auto it = registry.find(&db);
	if (it != registry.end()) {
		if (auto store = it->second.lock()) {
			return store;
		}
	}
	auto store = std::make_shared<SimStore>();
	// The database's VirtualFileSystem owns the file system, and with it the store's state: a
	// database at a reused address finds the old entry expired and registers again.
	db.GetFileSystem().RegisterSubSystem(make_uniq<SimStoreFileSystem>(store));
	registry[&db] = store;
	return store;
}

} // namespace vortex
