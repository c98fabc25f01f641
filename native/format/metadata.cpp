#include "metadata.hpp"

#include "bytes.hpp"
#include "utf8.hpp"

#include <unordered_set>

namespace vtx {

std::vector<uint8_t> FileMetadata::Serialize() const {
	ByteWriter w;
	w.Var(version);
	w.Var(fields.size());
	for (auto &f : fields) {
		w.Str(f.name);
		w.U8(static_cast<uint8_t>(f.type.id));
		w.U8(f.type.width);
		w.U8(f.type.scale);
	}
	w.Var(zones.size());
	for (auto &z : zones) {
		w.Var(z.rows);
		for (auto &c : z.chunks) {
			w.Var(c.offset);
			w.Var(c.stored_size);
			w.Var(c.raw_size);
			w.U8(static_cast<uint8_t>(c.codec));
			w.U8(c.encoding);
			w.U32(c.crc);
			c.stats.Serialize(w);
		}
	}
	w.Str(created_by);
	return std::move(w.data);
}

FileMetadata FileMetadata::Deserialize(const uint8_t *p, size_t n, uint64_t file_size) {
	ByteReader r(p, n, "footer");
	FileMetadata m;
	m.version = static_cast<uint32_t>(r.Var());
	if (m.version < kMinFormatVersion || m.version > kFormatVersion) {
		throw FormatError("unsupported format version " + std::to_string(m.version) + " (this reader supports " +
		                  std::to_string(kMinFormatVersion) + " to " + std::to_string(kFormatVersion) + ")");
	}
	m.footer_size = n;
	m.file_size = file_size;
	const uint64_t data_end = file_size - kTrailerSize - n;
	auto nfields = r.Count(4);
	if (nfields == 0) {
		throw FormatError("footer declares no columns");
	}
	m.fields.resize(nfields);
	std::unordered_set<std::string> names;
	for (auto &f : m.fields) {
		f.name = r.Str();
		if (!ValidUtf8(reinterpret_cast<const uint8_t *>(f.name.data()), f.name.size())) {
			throw FormatError("a column name is not valid UTF-8");
		}
		// DuckDB matches names case-insensitively and cannot bind a table with two equal ones.
		std::string folded = f.name;
		for (auto &ch : folded) {
			ch = static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
		}
		if (!names.insert(folded).second) {
			throw FormatError("duplicate column name \"" + f.name + "\"");
		}
		f.type.id = static_cast<TypeId>(r.U8());
		f.type.width = r.U8();
		f.type.scale = r.U8();
		if (!f.type.Valid()) {
			throw FormatError("column \"" + f.name + "\" has an invalid type");
		}
	}
	auto nzones = r.Count(1 + nfields * 12);
	m.zones.resize(nzones);
	uint64_t rows = 0;
	for (auto &z : m.zones) {
		z.rows = r.Var();
		z.first_row = rows;
		if (z.rows > kMaxZoneRows || rows + z.rows < rows) {
			throw FormatError("zone row count is out of range");
		}
		rows += z.rows;
		z.chunks.resize(nfields);
		for (size_t c = 0; c < nfields; c++) {
			auto &ch = z.chunks[c];
			ch.offset = r.Var();
			ch.stored_size = r.Var();
			ch.raw_size = r.Var();
			ch.codec = static_cast<Codec>(r.U8());
			ch.encoding = r.U8();
			ch.crc = r.U32();
			if (ch.codec != Codec::NONE && ch.codec != Codec::ZSTD && ch.codec != Codec::LZ4) {
				throw FormatError("unknown compression codec " + std::to_string(static_cast<int>(ch.codec)));
			}
			if (ch.offset < kHeaderSize || ch.offset > data_end || ch.stored_size > data_end - ch.offset) {
				throw FormatError("segment of column \"" + m.fields[c].name + "\" lies outside the data area");
			}
			if (ch.codec == Codec::NONE && ch.raw_size != ch.stored_size) {
				throw FormatError("uncompressed segment sizes disagree");
			}
			// Bounded so a hostile footer cannot make the reader allocate without limit.
			if (ch.raw_size > (uint64_t(1) << 34) || ch.raw_size > ch.stored_size * 100000 + 4096) {
				throw FormatError("segment declares an implausible decompressed size");
			}
			ch.stats = ZoneStats::Deserialize(r, m.fields[c].type);
			if (ch.stats.rows != z.rows) {
				throw FormatError("statistics of column \"" + m.fields[c].name + "\" disagree with the zone's row count");
			}
		}
	}
	m.total_rows = rows;
	m.created_by = r.Str();
	if (!ValidUtf8(reinterpret_cast<const uint8_t *>(m.created_by.data()), m.created_by.size())) {
		throw FormatError("created_by is not valid UTF-8");
	}
	if (!r.AtEnd()) {
		throw FormatError("footer has unexpected trailing bytes");
	}
	return m;
}

} // namespace vtx
