#include "metadata_cache.hpp"

#include "duckdb_compat.hpp"
#include "settings.hpp"
#include "duckdb/storage/object_cache.hpp"

#include <algorithm>
#include <cstring>
#include <list>
#include <mutex>
#include <unordered_map>

namespace vortex {

using namespace duckdb;

namespace {

// One cache per database (in DuckDB's ObjectCache), bounded in bytes by the setting
// vortex_metadata_cache_size of the connection using it (not by DuckDB), least recently used
// evicted first.
class MetadataCache : public compat::UnevictedCacheEntry<MetadataCache> {
public:
	static string ObjectType() {
		return "vortex_metadata_cache";
	}

	struct Entry {
		std::string path;
		uint64_t size;
		uint8_t trailer[vtx::kTrailerSize];
		std::shared_ptr<const vtx::FileMetadata> meta;
		size_t bytes;
		//! The version of the file the footer was read from (or last confirmed for), and when.
		FileVersion version;
		timestamp_t seen;
	};

	//! The footer of `path` where the cache holds it for this very version of the file, as its
	//! open describes it (no read): an equal ETag, or, where the file system has none, an equal
	//! last-modified time that was already more than DuckDB's 10 seconds old when the entry was
	//! recorded (clocks of a second's resolution cannot tell two writes within one apart, so a
	//! younger time proves nothing; ExternalFileCache::IsValid is the rule this follows).
	std::shared_ptr<const vtx::FileMetadata> FindUnchanged(const std::string &path, uint64_t size,
	                                                       const FileVersion &now, size_t limit) {
		std::lock_guard<std::mutex> guard(lock);
		auto entry = Held(path, limit);
		if (entry == lru.end() || entry->size != size) {
			return nullptr;
		}
		const auto &was = entry->version;
		bool same;
		if (!was.tag.empty() || !now.tag.empty()) {
			same = was.tag == now.tag;
		} else {
			static constexpr int64_t kSettledMicros = 10LL * 1000LL * 1000LL;
			same = was.last_modified == now.last_modified && Timestamp::IsFinite(now.last_modified) &&
			       entry->seen > now.last_modified && entry->seen - now.last_modified > kSettledMicros;
		}
		if (!same) {
			return nullptr;
		}
		lru.splice(lru.begin(), lru, entry);
		return entry->meta;
	}

	std::shared_ptr<const vtx::FileMetadata> Find(const std::string &path, uint64_t size, const uint8_t *trailer,
	                                              const FileVersion &now, size_t limit) {
		std::lock_guard<std::mutex> guard(lock);
		auto entry = Held(path, limit);
		if (entry == lru.end()) {
			return nullptr;
		}
		if (entry->size != size || std::memcmp(entry->trailer, trailer, vtx::kTrailerSize) != 0) {
			Erase(entry); // another version of the file: this one is of no further use
			return nullptr;
		}
		// The same footer: the file's version as opened now names it from here on.
		entry->version = now;
		entry->seen = Timestamp::GetCurrentTimestamp();
		lru.splice(lru.begin(), lru, entry);
		return entry->meta;
	}

	//! Whether a footer of `path` at `size` bytes is held (its version not yet checked).
	bool Holds(const std::string &path, uint64_t size) {
		std::lock_guard<std::mutex> guard(lock);
		auto it = index.find(path);
		return it != index.end() && it->second->size == size;
	}

	void Insert(const std::string &path, uint64_t size, const uint8_t *trailer,
	            std::shared_ptr<const vtx::FileMetadata> meta, const FileVersion &version, size_t limit) {
		Entry e;
		e.path = path;
		e.size = size;
		e.version = version;
		e.seen = Timestamp::GetCurrentTimestamp();
		std::memcpy(e.trailer, trailer, vtx::kTrailerSize);
		e.meta = std::move(meta);
		// The footer, the path (in the entry and as the index's key) and the containers' nodes.
		e.bytes = EstimateMetadataBytes(*e.meta) + 2 * (path.size() + 1) + version.tag.size() + sizeof(Entry) + 64;
		std::lock_guard<std::mutex> guard(lock);
		auto it = index.find(path);
		if (it != index.end()) {
			Erase(it->second);
		}
		if (e.bytes > limit) {
			Trim(limit);
			return; // larger than the whole cache: not kept
		}
		total += e.bytes;
		lru.push_front(std::move(e));
		index[path] = lru.begin();
		Trim(limit);
	}

	std::vector<CachedFooter> Contents() {
		std::lock_guard<std::mutex> guard(lock);
		std::vector<CachedFooter> out;
		for (auto &e : lru) {
			out.push_back(CachedFooter {e.path, e.size, e.meta->zones.size(), e.bytes});
		}
		return out;
	}

private:
	//! The entry of `path` (lru.end() where none), once the cache is trimmed to `limit`. Holds `lock`.
	std::list<Entry>::iterator Held(const std::string &path, size_t limit) {
		Trim(limit);
		auto it = index.find(path);
		return it == index.end() ? lru.end() : it->second;
	}
	void Erase(std::list<Entry>::iterator entry) {
		total -= entry->bytes;
		index.erase(entry->path);
		lru.erase(entry);
	}
	void Trim(size_t limit) {
		while (total > limit && !lru.empty()) {
			Erase(std::prev(lru.end()));
		}
	}

	std::mutex lock;
	std::list<Entry> lru; //! most recently used first
	std::unordered_map<std::string, std::list<Entry>::iterator> index;
	size_t total = 0;
};

duckdb::shared_ptr<MetadataCache> CacheOf(ClientContext &context) {
	return ObjectCache::GetObjectCache(context).GetOrCreate<MetadataCache>("vortex:metadata_cache");
}

//! Heap bytes of a string beyond the object itself (none when stored inline), with the
//! allocator's header.
size_t HeapBytes(const std::string &s) {
	auto p = reinterpret_cast<const char *>(s.data());
	auto self = reinterpret_cast<const char *>(&s);
	if (p >= self && p < self + sizeof(s)) {
		return 0;
	}
	return s.capacity() + 1 + 16;
}

template <class T>
size_t VectorBytes(const std::vector<T> &v) {
	return v.capacity() ? v.capacity() * sizeof(T) + 16 : 0;
}

//! A chunk's statistics strings and, for nested columns, its children's chunks.
size_t ChunkBytes(const vtx::ChunkMeta &c) {
	size_t n = HeapBytes(c.stats.min) + HeapBytes(c.stats.max) + VectorBytes(c.children);
	for (auto &child : c.children) {
		n += ChunkBytes(child);
	}
	return n;
}

//! A type's nested description (fields, ENUM values, a GEOMETRY's CRS), counted once per column.
size_t TypeBytes(const vtx::ColumnType &t) {
	if (!t.nested) {
		return 0;
	}
	size_t n = sizeof(vtx::NestedInfo) + 16 + VectorBytes(t.nested->children) + VectorBytes(t.nested->enum_values) +
	           HeapBytes(t.nested->enum_name) + HeapBytes(t.nested->crs);
	for (auto &v : t.nested->enum_values) {
		n += HeapBytes(v);
	}
	for (auto &c : t.nested->children) {
		n += HeapBytes(c.name) + TypeBytes(c.type);
	}
	return n;
}

} // namespace

size_t EstimateMetadataBytes(const vtx::FileMetadata &meta) {
	size_t n = sizeof(vtx::FileMetadata) + 16 + HeapBytes(meta.created_by);
	n += VectorBytes(meta.fields);
	for (auto &f : meta.fields) {
		n += HeapBytes(f.name) + TypeBytes(f.type);
	}
	n += VectorBytes(meta.zones);
	for (auto &z : meta.zones) {
		n += VectorBytes(z.chunks);
		for (auto &c : z.chunks) {
			n += ChunkBytes(c);
		}
	}
	return n;
}

std::shared_ptr<const vtx::FileMetadata> GetMetadata(FileSource &source) {
	return GetMetadata(source, MetadataCacheLimit(source.Context()));
}

//! The first read of an open. A footer grows with the file (its zones times its columns: 66 KiB for a
//! 139 MB file of 8 columns), and on object storage a second request costs as much as megabytes
//! more of the first (zone_fetch.hpp): a remote file's first read is a thousandth of it, at least
//! the 64 KiB that holds most footers and at most 1 MiB. A local file's second read costs nothing.
static uint64_t TailRead(FileSource &source, uint64_t size) {
	if (!source.Remote()) {
		return vtx::kTailRead;
	}
	return std::min<uint64_t>(std::max<uint64_t>(size / 1024, vtx::kTailRead), uint64_t(1) << 20);
}

std::shared_ptr<const vtx::FileMetadata> GetMetadata(FileSource &source, size_t limit) {
	auto &context = source.Context();
	auto cache = CacheOf(context);
	auto size = source.Size();
	// No read where the open says the file is the version the cache holds a footer of (its ETag,
	// or a settled last-modified time, as DuckDB validates its external file cache). Else one read:
	// where the cache holds a footer of this path and size, its trailer alone (which names the
	// version); otherwise (or for another version) the file's tail, which usually holds the footer.
	if (cache) {
		if (auto meta = cache->FindUnchanged(source.Path(), size, source.Version(), limit)) {
			source.SetCacheIdentity(meta->footer_crc);
			return meta;
		}
	}
	if (cache && cache->Holds(source.Path(), size)) {
		uint8_t held[vtx::kTrailerSize];
		source.ReadAt(size - vtx::kTrailerSize, held, vtx::kTrailerSize);
		if (auto meta = cache->Find(source.Path(), size, held, source.Version(), limit)) {
			source.SetCacheIdentity(meta->footer_crc);
			return meta;
		}
	}
	std::vector<uint8_t> tail;
	std::shared_ptr<const vtx::FileMetadata> meta;
	try {
		// A small remote file may be read whole here, as the setting asks: its columns then come from
		// DuckDB's external file cache, which keeps this read, at no further request.
		const bool whole = source.Cached() && size <= RemoteWholeFileSize(context);
		tail = vtx::ReadTail(source, whole ? size : TailRead(source, size));
		meta = std::make_shared<const vtx::FileMetadata>(vtx::ReadMetadata(source, tail));
	} catch (vtx::FormatError &e) {
		ThrowFileError(source.Path(), e);
	}
	if (cache) {
		cache->Insert(source.Path(), size, tail.data() + tail.size() - vtx::kTrailerSize, meta, source.Version(), limit);
	}
	source.SetCacheIdentity(meta->footer_crc);
	return meta;
}

std::vector<CachedFooter> CachedFooters(ClientContext &context) {
	auto cache = CacheOf(context);
	return cache ? cache->Contents() : std::vector<CachedFooter>();
}

} // namespace vortex
