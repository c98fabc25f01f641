// The footer of a .vtx file: schema, zones, and for every column chunk where its
// segment lives, how it is stored, its checksum and its statistics.
//
//   "VTX1" | segments ... | footer | u32 footer length | u32 footer crc32c | "VTX1"
#pragma once
#include "compression.hpp"
#include "../encodings/encoding.hpp"
#include "../stats/stats.hpp"
#include "../types.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace vtx {

constexpr char kMagic[4] = {'V', 'T', 'X', '1'};
//! Version 2 adds the ALP encoding of floats; version 3 nested types and ENUM; version 4 exact
//! float sums in zone statistics; version 5 key-value metadata in the footer; version 6 the TIME_NS
//! type and unnamed STRUCTs; version 7 GEOMETRY; version 8 JSON and BIT. A writer marks a
//! file with the lowest version that describes it, so older readers refuse only the files they
//! cannot read, with a clear error. An encoding's version is a column of its row (VTX_ENCODINGS,
//! encodings/encoding.hpp), so that a new encoding raises the format's version where it is listed.
constexpr uint32_t kFormatVersion = std::max<uint32_t>(8, NewestEncodingVersion());
//! The first version with nested types and ENUM (ColumnType::NeedsVersion3).
constexpr uint32_t kNestedVersion = 3;
//! The first version whose float statistics hold exact sums (ZoneStats::exact_sum).
constexpr uint32_t kExactFloatSumVersion = 4;
//! The first version whose footer ends with key-value metadata (FileMetadata::key_value).
constexpr uint32_t kKeyValueVersion = 5;
//! The first version with the TIME_NS type and unnamed STRUCTs.
constexpr uint32_t kTimeNsVersion = 6;
//! The first version with the GEOMETRY type.
constexpr uint32_t kGeometryVersion = 7;
//! The first version with the JSON and BIT types.
constexpr uint32_t kJsonBitVersion = 8;
constexpr uint32_t kMinFormatVersion = 1;
constexpr size_t kHeaderSize = 4;
constexpr size_t kTrailerSize = 12;

//! The lowest format version that describes `type`, whatever is nested in it: what a writer marks
//! a file with (a FLOAT or DOUBLE anywhere needs version 4, whose statistics keep exact sums).
uint32_t MinFormatVersion(const ColumnType &type);

//! A column type in the footer's own encoding, for what else must carry one (a serialized plan).
void WriteColumnType(ByteWriter &w, const ColumnType &type);
ColumnType ReadColumnType(ByteReader &r);

struct ChunkMeta {
	uint64_t offset = 0;      //! of the stored segment, from the start of the file
	uint64_t stored_size = 0; //! bytes on disk
	uint64_t raw_size = 0;    //! bytes after block decompression
	Codec codec = Codec::NONE;
	uint8_t encoding = 0; //! value encoding, for inspection only (the segment records its own)
	uint32_t crc = 0;     //! CRC-32C of the stored bytes
	ZoneStats stats;      //! stats.rows: the values in this stream (a list's elements, not its rows)
	std::vector<ChunkMeta> children; //! nested types: one per child stream, in type order
};

struct ZoneMeta {
	uint64_t rows = 0;
	uint64_t first_row = 0; //! derived on read: rows of all earlier zones
	std::vector<ChunkMeta> chunks; //! one per field
};

struct FileMetadata {
	uint32_t version = kFormatVersion;
	std::vector<Field> fields;
	std::vector<ZoneMeta> zones;
	std::string created_by;
	//! Version 4: per field, a fingerprint of the hash the zone sketches were made with (the
	//! query engine's, which may change between its releases); 0 where a field has no sketches.
	//! Empty when no field has any.
	std::vector<uint64_t> hash_fingerprints;
	//! Version 5: the writer's key-value pairs (COPY ... KV_METADATA), bytes as given, in order.
	std::vector<std::pair<std::string, std::string>> key_value;
	uint64_t total_rows = 0; //! derived on read
	uint64_t footer_size = 0;
	uint64_t file_size = 0;
	uint32_t footer_crc = 0; //! derived on read: the trailer's checksum, which identifies this version of the file

	std::vector<uint8_t> Serialize() const;
	//! Parses and validates a footer against the size of the file it came from.
	static FileMetadata Deserialize(const uint8_t *p, size_t n, uint64_t file_size);
};

} // namespace vtx
