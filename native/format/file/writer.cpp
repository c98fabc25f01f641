#include "writer.hpp"

#include "checksum.hpp"
#include "../encodings/encoding.hpp"
#include "../scratch.hpp"
#include "../stats/stats_builder.hpp"

#include <algorithm>

namespace vtx {

namespace {

bool PreferLz4(const std::vector<uint8_t> &body, int level) {
	constexpr size_t kPrefix = 16 << 10;
	std::vector<uint8_t> prefix(body.begin(), body.begin() + static_cast<std::ptrdiff_t>(std::min(body.size(), kPrefix)));
	std::vector<uint8_t> z, l;
	if (!Compress(Codec::LZ4, 0, prefix, l)) {
		return false;
	}
	if (!Compress(Codec::ZSTD, level, prefix, z)) {
		return true;
	}
	return l.size() <= z.size() + z.size() / 2;
}

//! Whether zstd meets Compress's bar on a 16 KiB sample of the segment: four slices spread over
//! it (a string segment starts with its packed lengths, which say nothing of how its bytes
//! compress). Where it does not, the segment would almost always be stored raw anyway (bit-packed
//! integers are), and compressing it whole to find out was a tenth of a COPY's time.
bool WorthCompressing(const std::vector<uint8_t> &body, int level) {
	constexpr size_t kSlices = 4, kSlice = 4 << 10;
	if (body.size() <= kSlices * kSlice) {
		return true; // small: compressing it whole costs no more than the trial
	}
	std::vector<uint8_t> sample, z;
	sample.reserve(kSlices * kSlice);
	for (size_t k = 0; k < kSlices; k++) {
		const size_t at = (body.size() - kSlice) * k / (kSlices - 1);
		sample.insert(sample.end(), body.begin() + static_cast<std::ptrdiff_t>(at),
		              body.begin() + static_cast<std::ptrdiff_t>(at + kSlice));
	}
	return Compress(Codec::ZSTD, level, sample, z);
}

} // namespace

namespace {

//! The number of values each child stream of `in` must hold.
uint64_t ChildValues(const ColumnInput &in) {
	switch (in.type.id) {
	case TypeId::ARRAY: return in.count * in.type.nested->array_size;
	case TypeId::LIST:
	case TypeId::MAP: {
		uint64_t total = 0;
		auto lengths = reinterpret_cast<const uint64_t *>(in.fixed);
		for (uint64_t i = 0; i < in.count; i++) {
			total += in.IsValid(i) ? lengths[i] : 0;
		}
		return total;
	}
	default: return in.count;
	}
}

} // namespace

void EncodeChunkInto(const ColumnInput &in_p, const WriterOptions &options, EncodedChunk &out) {
	const ColumnInput *src = &in_p;
	ColumnInput node;
	if (in_p.type.NeedsVersion3()) {
		// The node's own stream: its storage type, no children.
		node.type = in_p.type.Storage();
		node.count = in_p.count;
		node.valid = in_p.valid;
		node.fixed = in_p.fixed;
		src = &node;
		auto &children = in_p.type.Children();
		if (in_p.children.size() != children.size()) {
			throw FormatError("a nested column chunk has the wrong number of children");
		}
		const uint64_t values = ChildValues(in_p);
		if (values > kMaxZoneRows) {
			throw FormatError("a zone of a nested column holds more than 2^30 values in one stream; write smaller zones (ROW_GROUP_SIZE)");
		}
		out.children.resize(children.size());
		for (size_t i = 0; i < children.size(); i++) {
			if (in_p.children[i].count != values || in_p.children[i].type != children[i].type) {
				throw FormatError("a child stream of a nested column chunk does not match its parent");
			}
			EncodeChunkInto(in_p.children[i], options, out.children[i]);
		}
	}
	auto &in = *src;
	{
		// The body's buffer is kept for the thread's next segment (an uncompressed body is copied
		// out): a fresh one per segment cost a page fault per 4 KiB of every string column's bytes.
		ScratchLease lease;
		thread_local ScratchSlot<std::vector<uint8_t>> kept;
		ByteWriter body;
		body.data.swap(kept.value);
		body.data.clear();
		body.data.reserve(16 + in.count * (in.type.ByteWidth() ? in.type.ByteWidth() : 16) + in.count / 8);
		// Statistics after encoding, while the values are still in the cache, and with what the
		// encoding settled (ValueHint: the distinct values, a string range), not looked for again.
		ValueHint hint;
		out.encoding = static_cast<uint8_t>(EncodeChunk(in, body, &hint));
		out.stats = ComputeStats(in, true, options.distinct_values, &hint);
		out.distinct_values = std::move(hint.fixed_values);
		if (in_p.type.NeedsVersion3()) {
			// Only counts describe a nested or ENUM node: its stream's values are not its values.
			auto rows = out.stats.rows, nulls = out.stats.nulls;
			out.stats = ZoneStats();
			out.stats.rows = rows;
			out.stats.nulls = nulls;
		}
		out.raw_size = body.Size();
		// Under zstd, lz4 is used instead where it stores at most half as much again as zstd:
		// it decodes several times faster. Both are tried on a prefix first, so that only one
		// codec compresses the whole segment; none does where a sample shows it would not pay.
		Codec codec = options.codec;
		if (codec == Codec::ZSTD) {
			codec = !WorthCompressing(body.data, options.level) ? Codec::NONE
			        : PreferLz4(body.data, options.level)       ? Codec::LZ4
			                                                    : Codec::ZSTD;
		}
		bool compressed = Compress(codec, options.level, body.data, out.bytes);
		if (!compressed && codec != options.codec && codec != Codec::NONE) {
			codec = options.codec; // the prefix misled: the codec asked for still gets its chance
			compressed = Compress(codec, options.level, body.data, out.bytes);
		}
		if (compressed) {
			out.codec = codec;
		} else {
			// Copied out, so that the next segment (most often a string column's, which
			// compresses) still finds the buffer.
			out.bytes.assign(body.data.begin(), body.data.end());
			out.codec = Codec::NONE;
		}
		body.data.swap(kept.value);
		out.crc = Crc32c(out.bytes.data(), out.bytes.size());
	}
}

namespace {

void AppendChunk(EncodedChunk &chunk, OutputSink &sink, uint64_t &position, uint32_t &version, ChunkMeta &c) {
	c.offset = position;
	c.stored_size = chunk.bytes.size();
	c.raw_size = chunk.raw_size;
	c.codec = chunk.codec;
	c.encoding = chunk.encoding;
	version = std::max<uint32_t>(version, EncodingVersion(static_cast<Encoding>(c.encoding)));
	c.crc = chunk.crc;
	c.stats = std::move(chunk.stats);
	if (c.stats.has_sketch || c.stats.has_distinct) {
		version = std::max<uint32_t>(version, kExactFloatSumVersion); // version 4 keeps them
	}
	sink.Write(chunk.bytes.data(), chunk.bytes.size());
	position += chunk.bytes.size();
	c.children.resize(chunk.children.size());
	for (size_t i = 0; i < chunk.children.size(); i++) {
		AppendChunk(chunk.children[i], sink, position, version, c.children[i]);
	}
}

} // namespace

FileWriter::FileWriter(std::vector<Field> fields, OutputSink &sink, std::string created_by) : sink(sink) {
	meta.fields = std::move(fields);
	meta.created_by = std::move(created_by);
	meta.version = kMinFormatVersion; // raised by the first segment that needs a newer reader
	for (auto &f : meta.fields) {
		meta.version = std::max(meta.version, MinFormatVersion(f.type));
	}
	sink.Write(reinterpret_cast<const uint8_t *>(kMagic), sizeof(kMagic));
	position = sizeof(kMagic);
}

void FileWriter::SetKeyValueMetadata(std::vector<std::pair<std::string, std::string>> key_value) {
	meta.key_value = std::move(key_value);
	if (!meta.key_value.empty()) {
		meta.version = std::max<uint32_t>(meta.version, kKeyValueVersion);
	}
}

void FileWriter::SetHashFingerprints(std::vector<uint64_t> fingerprints) {
	if (!fingerprints.empty() && fingerprints.size() != meta.fields.size()) {
		throw FormatError("hash fingerprints for " + std::to_string(fingerprints.size()) + " of " +
		                  std::to_string(meta.fields.size()) + " columns");
	}
	meta.hash_fingerprints = std::move(fingerprints);
	if (!meta.hash_fingerprints.empty()) {
		meta.version = std::max<uint32_t>(meta.version, kExactFloatSumVersion); // sketches: version 4
	}
}

void FileWriter::AppendZone(EncodedZone &&zone) {
	if (zone.chunks.size() != meta.fields.size()) {
		throw FormatError("zone has the wrong number of columns");
	}
	ZoneMeta z;
	z.rows = zone.rows;
	z.first_row = rows;
	for (auto &chunk : zone.chunks) {
		ChunkMeta c;
		AppendChunk(chunk, sink, position, meta.version, c);
		z.chunks.push_back(std::move(c));
	}
	rows += zone.rows;
	meta.zones.push_back(std::move(z));
}

uint64_t FileWriter::Finish() {
	auto footer = meta.Serialize();
	sink.Write(footer.data(), footer.size());
	if (footer.size() > UINT32_MAX) {
		throw FormatError("footer is larger than 4 GiB");
	}
	uint32_t len = static_cast<uint32_t>(footer.size());
	meta.footer_size = footer.size();
	uint32_t crc = Crc32c(footer.data(), footer.size());
	sink.Write(reinterpret_cast<const uint8_t *>(&len), 4);
	sink.Write(reinterpret_cast<const uint8_t *>(&crc), 4);
	sink.Write(reinterpret_cast<const uint8_t *>(kMagic), sizeof(kMagic));
	position += footer.size() + kTrailerSize;
	return position;
}

} // namespace vtx
