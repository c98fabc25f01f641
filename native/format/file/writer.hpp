// Writes a .vtx file zone by zone. Encoding a zone's columns is pure and thread-safe
// (EncodeChunkInto), so callers can encode zones, and columns of a zone, in parallel and append in order.
#pragma once
#include "../column.hpp"
#include "metadata.hpp"

#include <cstdint>
#include <vector>

namespace vtx {

class OutputSink {
public:
	virtual ~OutputSink() = default;
	virtual void Write(const uint8_t *data, size_t n) = 0;
};

struct WriterOptions {
	uint64_t zone_rows = 122880;
	Codec codec = Codec::ZSTD;
	int level = 1;
	//! Zones keep their distinct values where few (ZoneStats::distinct; format version 4).
	bool distinct_values = true;
};

struct EncodedChunk {
	std::vector<uint8_t> bytes; //! as stored
	uint64_t raw_size = 0;
	Codec codec = Codec::NONE;
	uint8_t encoding = 0;
	uint32_t crc = 0;
	ZoneStats stats;
	//! Not stored: the distinct valid values the encoder found (ValueHint::fixed_values), for the
	//! caller's sketches; empty when unknown.
	std::vector<uint8_t> distinct_values;
	std::vector<EncodedChunk> children; //! nested types, written after this chunk
};

struct EncodedZone {
	uint64_t rows = 0;
	std::vector<EncodedChunk> chunks;
};

//! One column of a zone; the columns of a zone may be encoded on different threads.
void EncodeChunkInto(const ColumnInput &column, const WriterOptions &options, EncodedChunk &out);

class FileWriter {
public:
	FileWriter(std::vector<Field> fields, OutputSink &sink, std::string created_by);

	//! Per field, the fingerprint of the hash its zone sketches are made with (FileMetadata).
	void SetHashFingerprints(std::vector<uint64_t> fingerprints);
	//! Key-value pairs for the footer (version 5); none leaves the version as the data needs it.
	void SetKeyValueMetadata(std::vector<std::pair<std::string, std::string>> key_value);
	void AppendZone(EncodedZone &&zone);
	//! Writes footer and trailer; returns the bytes written in total.
	uint64_t Finish();
	uint64_t RowsWritten() const {
		return rows;
	}
	//! Bytes written so far (the footer not yet).
	uint64_t BytesWritten() const {
		return position;
	}
	//! The footer as written (footer_size set once Finish has run).
	const FileMetadata &Metadata() const {
		return meta;
	}

private:
	OutputSink &sink;
	FileMetadata meta;
	uint64_t position = 0;
	uint64_t rows = 0;
};

} // namespace vtx
