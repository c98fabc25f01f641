#include "verified_summaries.hpp"

#include "../../compute/distinct_set.hpp"
#include "../../format/file/reader.hpp"
#include "../../format/stats/stats_builder.hpp"
#include "../sketches.hpp"

#include <mutex>
#include <unordered_set>

namespace vortex {

using namespace duckdb;

namespace {

//! Versions of files whose summaries were found true: path, size, footer checksum, field, kind.
struct Verified {
	std::mutex lock;
	std::unordered_set<std::string> keys;
};

Verified &Registry() {
	static Verified registry;
	return registry;
}

std::string KeyOf(const std::string &path, const vtx::FileMetadata &meta, idx_t field, Summary summary) {
	return path + '\0' + std::to_string(meta.file_size) + '\0' + std::to_string(meta.footer_crc) + '\0' +
	       std::to_string(field) + '\0' + std::to_string(static_cast<int>(summary));
}

[[noreturn]] void Disagrees(const std::string &path, const vtx::FileMetadata &meta, idx_t field, size_t zone,
                            Summary summary) {
	throw IOException("vortex: file \"%s\" is not a valid .vtx file: the %s of zone %d of column \"%s\" disagrees with "
	                  "its rows",
	                  path, summary == Summary::SKETCH ? "sketch" : "distinct values", zone, meta.fields[field].name);
}

} // namespace

void VerifySummaries(FileSource &source, const vtx::FileMetadata &meta, idx_t field, Summary summary,
                     const std::string &path) {
	const auto key = KeyOf(path, meta, field, summary);
	auto &registry = Registry();
	{
		std::lock_guard<std::mutex> guard(registry.lock);
		if (registry.keys.count(key)) {
			return;
		}
	}
	auto &type = meta.fields[field].type;
	for (size_t z = 0; z < meta.zones.size(); z++) {
		auto &stats = meta.zones[z].chunks[field].stats;
		if (summary == Summary::SKETCH ? !stats.has_sketch : !stats.has_distinct) {
			continue;
		}
		vtx::DecodedColumn chunk;
		try {
			vtx::ReadChunk(source, meta, z, field, chunk);
		} catch (vtx::FormatError &e) {
			ThrowFileError(path, e);
		}
		if (summary == Summary::SKETCH) {
			HyperLogLog registers;
			SketchDecoded(chunk, type, nullptr, registers);
			if (RegistersOf(registers) != stats.sketch) {
				Disagrees(path, meta, field, z, summary);
			}
			continue;
		}
		vtx::compute::DistinctSet actual(type), stored(type);
		actual.InsertDecoded(chunk, nullptr, 0, chunk.count);
		for (auto &v : stats.distinct) {
			stored.Insert(v);
		}
		// Every stored value is distinct (the reader checked their order), so equal sizes and
		// `stored` holding every actual value mean equal sets.
		vtx::compute::DistinctSet both = actual;
		both.Merge(stored);
		if (actual.Size() != stats.distinct.size() || both.Size() != actual.Size()) {
			Disagrees(path, meta, field, z, summary);
		}
	}
	std::lock_guard<std::mutex> guard(registry.lock);
	if (registry.keys.size() > 100000) {
		registry.keys.clear(); // bounded: a forgotten file is checked again
	}
	registry.keys.insert(key);
}

} // namespace vortex
