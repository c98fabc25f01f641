// Gathers rows from DuckDB chunks into zone-sized column buffers and encodes each full
// zone. Strings are copied: DuckDB's inlined strings live in vectors that are reused.
#pragma once
#include "../../format/file/writer.hpp"
#include "duckdb.hpp"

namespace vortex {

class ZoneAccumulator {
public:
	//! `sketched`: per column, whether its zones keep a sketch of DuckDB's hashes (sketches.hpp).
	ZoneAccumulator(std::vector<vtx::ColumnType> types, vtx::WriterOptions options, std::vector<bool> sketched);
	~ZoneAccumulator();
	ZoneAccumulator(const ZoneAccumulator &) = delete;
	ZoneAccumulator &operator=(const ZoneAccumulator &) = delete;

	//! Appends a chunk; every zone that fills up is encoded into `out`.
	void Append(duckdb::DataChunk &chunk, std::vector<vtx::EncodedZone> &out);
	//! Appends rows of `chunk` from `start` until the zone is full; returns how many it took.
	duckdb::idx_t AppendUntilFull(duckdb::DataChunk &chunk, duckdb::idx_t start);
	bool Full() const {
		return rows >= options.zone_rows;
	}
	bool Empty() const {
		return rows == 0;
	}
	//! Encodes the partial zone, if any, and leaves the accumulator empty for the next one.
	void Flush(std::vector<vtx::EncodedZone> &out);

	// Flush in parts, for columns encoded on different threads: StartZone, then EncodeColumn for
	// each column (any order, concurrently for different columns), then Reset.
	void StartZone(vtx::EncodedZone &zone) const;
	void EncodeColumn(duckdb::idx_t column, vtx::EncodedZone &zone);
	void Reset();
	duckdb::idx_t ColumnCount() const {
		return types.size();
	}
	//! The bytes a column's rows fill: what its encoding has to read, roughly.
	uint64_t ColumnBytes(duckdb::idx_t column) const;

private:
public:
	//! One stream: a column, or a node or leaf of a nested column (its children then follow).
	struct Column {
		void Clear() {
			valid.clear();
			fixed.clear();
			offsets.clear();
			bytes.clear();
			any_null = false;
			for (auto &c : children) {
				c.Clear();
			}
		}
		// Uninitialised on resize (ByteBuffer): every row appended is written once, not zeroed first.
		vtx::ByteBuffer valid;
		bool any_null = false;
		vtx::ByteBuffer fixed;
		std::vector<uint64_t, vtx::DefaultInit<uint64_t>> offsets; //! string end offsets into bytes
		std::vector<char, vtx::DefaultInit<char>> bytes;
		std::vector<vtx::StringRef> refs; //! the writer's view of the strings (InputOf), kept for reuse
		std::vector<Column> children;
	};

private:
	void AppendRange(duckdb::DataChunk &chunk, duckdb::idx_t start, duckdb::idx_t count);
	void AppendStrings(Column &col, const duckdb::UnifiedVectorFormat &fmt, duckdb::idx_t start, duckdb::idx_t count);

	std::vector<vtx::ColumnType> types;
	vtx::WriterOptions options;
	std::vector<bool> sketched;
	std::vector<duckdb::LogicalType> logical; //! per sketched column, its DuckDB type (hashed as such)
	std::vector<Column> columns;
	uint64_t rows = 0;
};

} // namespace vortex
