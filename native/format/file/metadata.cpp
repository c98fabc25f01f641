#include "metadata.hpp"

#include "../bytes.hpp"
#include "../utf8.hpp"

#include <algorithm>
#include <unordered_set>

namespace vtx {

namespace {

void WriteType(ByteWriter &w, const ColumnType &type) {
	w.U8(static_cast<uint8_t>(type.id));
	w.U8(type.width);
	w.U8(type.scale);
	if (type.id == TypeId::GEOMETRY) {
		w.Str(type.Crs());
		return;
	}
	if (!type.NeedsVersion3()) {
		return;
	}
	auto &info = *type.nested;
	switch (type.id) {
	case TypeId::STRUCT:
	case TypeId::UNION:
		w.Var(info.children.size());
		for (auto &c : info.children) {
			w.Str(c.name);
			WriteType(w, c.type);
		}
		break;
	case TypeId::LIST: WriteType(w, info.children[0].type); break;
	case TypeId::MAP:
		WriteType(w, info.children[0].type);
		WriteType(w, info.children[1].type);
		break;
	case TypeId::ARRAY:
		w.Var(info.array_size);
		WriteType(w, info.children[0].type);
		break;
	case TypeId::ENUM:
		w.Var(info.enum_values.size());
		for (auto &v : info.enum_values) {
			w.Str(v);
		}
		w.Str(info.enum_name);
		break;
	default: break;
	}
}

void CheckName(const std::string &name, const char *what) {
	if (!ValidUtf8(reinterpret_cast<const uint8_t *>(name.data()), name.size())) {
		throw FormatError(std::string(what) + " is not valid UTF-8");
	}
}

ColumnType ReadType(ByteReader &r, uint32_t version, int depth) {
	if (depth > kMaxTypeDepth) {
		throw FormatError("a column type is nested more than " + std::to_string(kMaxTypeDepth) + " levels deep");
	}
	ColumnType t;
	t.id = static_cast<TypeId>(r.U8());
	t.width = r.U8();
	t.scale = r.U8();
	if (t.id == TypeId::GEOMETRY) {
		if (version < kGeometryVersion) {
			throw FormatError("a version " + std::to_string(version) + " file declares a GEOMETRY column");
		}
		auto crs = r.Str();
		CheckName(crs, "a GEOMETRY's coordinate reference system");
		if (!crs.empty()) {
			auto info = std::make_shared<NestedInfo>();
			info->crs = std::move(crs);
			t.nested = std::move(info);
		}
	}
	if (t.NeedsVersion3()) {
		if (version < kNestedVersion) {
			throw FormatError("a version " + std::to_string(version) + " file declares a nested or ENUM column");
		}
		auto info = std::make_shared<NestedInfo>();
		auto child = [&](std::string name) {
			info->children.push_back(Field {std::move(name), ReadType(r, version, depth + 1)});
		};
		switch (t.id) {
		case TypeId::STRUCT:
		case TypeId::UNION: {
			auto n = r.Count(4);
			if (n == 0 || n > kMaxChildren) {
				throw FormatError("a STRUCT or UNION declares " + std::to_string(n) + " fields");
			}
			std::unordered_set<std::string> names;
			for (uint64_t i = 0; i < n; i++) {
				auto name = r.Str();
				CheckName(name, "a field name");
				// An unnamed STRUCT's fields all have the empty name (checked by Valid()).
				if (!t.IsUnnamedStruct() && !names.insert(name).second) {
					throw FormatError("duplicate field name \"" + name + "\"");
				}
				child(std::move(name));
			}
			break;
		}
		case TypeId::LIST: child("element"); break;
		case TypeId::MAP:
			child("key");
			child("value");
			break;
		case TypeId::ARRAY:
			info->array_size = r.Var();
			child("element");
			break;
		default: { // ENUM
			auto n = r.Count(1);
			if (n > kMaxEnumValues) {
				throw FormatError("an ENUM declares too many values");
			}
			std::unordered_set<std::string> values;
			info->enum_values.reserve(n);
			for (uint64_t i = 0; i < n; i++) {
				auto v = r.Str();
				CheckName(v, "an ENUM value");
				if (!values.insert(v).second) {
					throw FormatError("duplicate ENUM value \"" + v + "\"");
				}
				info->enum_values.push_back(std::move(v));
			}
			info->enum_name = r.Str();
			CheckName(info->enum_name, "an ENUM name");
			break;
		}
		}
		t.nested = std::move(info);
	}
	if (!t.Valid()) {
		throw FormatError("invalid type");
	}
	if (version < kTimeNsVersion && (t.id == TypeId::TIME_NS || t.IsUnnamedStruct())) {
		throw FormatError("a version " + std::to_string(version) + " file declares a " +
		                  (t.IsUnnamedStruct() ? "STRUCT without field names" : "TIME_NS column"));
	}
	if (version < kJsonBitVersion && (t.id == TypeId::JSON || t.id == TypeId::BIT)) {
		throw FormatError("a version " + std::to_string(version) + " file declares a " + t.ToString() + " column");
	}
	return t;
}

void WriteChunk(ByteWriter &w, const ChunkMeta &c) {
	w.Var(c.offset);
	w.Var(c.stored_size);
	w.Var(c.raw_size);
	w.U8(static_cast<uint8_t>(c.codec));
	w.U8(c.encoding);
	w.U32(c.crc);
	c.stats.Serialize(w);
	for (auto &child : c.children) {
		WriteChunk(w, child);
	}
}

//! A chunk of `type` holding `values` values (unknown, 0 with `known` false, for a list's elements
//! until its lengths are decoded), and its children.
void ReadChunkMeta(ByteReader &r, const FileMetadata &m, const std::string &column, const ColumnType &type,
                   uint64_t values, bool known, ChunkMeta &ch) {
	const uint64_t data_end = m.file_size - kTrailerSize - m.footer_size;
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
		throw FormatError("segment of column \"" + column + "\" lies outside the data area");
	}
	if (ch.codec == Codec::NONE && ch.raw_size != ch.stored_size) {
		throw FormatError("uncompressed segment sizes disagree");
	}
	// Bounded so a hostile footer cannot make the reader allocate without limit.
	if (ch.raw_size > (uint64_t(1) << 34) || ch.raw_size > ch.stored_size * 100000 + 4096) {
		throw FormatError("segment declares an implausible decompressed size");
	}
	ch.stats = ZoneStats::Deserialize(r, type, m.version);
	if (known && ch.stats.rows != values) {
		throw FormatError("statistics of column \"" + column + "\" disagree with the zone's row count");
	}
	auto &children = type.Children();
	ch.children.resize(children.size());
	for (size_t i = 0; i < children.size(); i++) {
		auto name = column + "." + children[i].name;
		switch (type.id) {
		case TypeId::STRUCT:
		case TypeId::UNION:
			ReadChunkMeta(r, m, name, children[i].type, ch.stats.rows, true, ch.children[i]);
			break;
		case TypeId::ARRAY: {
			auto n = ch.stats.rows * type.nested->array_size; // both bounded: no overflow
			if (n > kMaxZoneRows) {
				throw FormatError("array column \"" + column + "\" has more elements in one zone than a zone can hold");
			}
			ReadChunkMeta(r, m, name, children[i].type, n, true, ch.children[i]);
			break;
		}
		default: // LIST, MAP: checked against the lengths when they are decoded
			ReadChunkMeta(r, m, name, children[i].type, i == 0 ? 0 : ch.children[0].stats.rows, i != 0, ch.children[i]);
			break;
		}
	}
}

} // namespace

uint32_t MinFormatVersion(const ColumnType &type) {
	uint32_t version = type.id == TypeId::JSON || type.id == TypeId::BIT       ? kJsonBitVersion
	                   : type.id == TypeId::GEOMETRY                          ? kGeometryVersion
	                   : type.id == TypeId::TIME_NS || type.IsUnnamedStruct() ? kTimeNsVersion
	                   : type.IsFloat()                                       ? kExactFloatSumVersion
	                   : type.NeedsVersion3()                                 ? kNestedVersion
	                                                                          : kMinFormatVersion;
	for (auto &child : type.Children()) {
		version = std::max(version, MinFormatVersion(child.type));
	}
	return version;
}

void WriteColumnType(ByteWriter &w, const ColumnType &type) {
	WriteType(w, type);
}

ColumnType ReadColumnType(ByteReader &r) {
	return ReadType(r, kFormatVersion, 0);
}

std::vector<uint8_t> FileMetadata::Serialize() const {
	ByteWriter w;
	w.Var(version);
	w.Var(fields.size());
	for (auto &f : fields) {
		w.Str(f.name);
		WriteType(w, f.type);
	}
	w.Var(zones.size());
	for (auto &z : zones) {
		w.Var(z.rows);
		for (auto &c : z.chunks) {
			WriteChunk(w, c);
		}
	}
	w.Str(created_by);
	if (version >= kExactFloatSumVersion) {
		w.Var(hash_fingerprints.size());
		for (auto f : hash_fingerprints) {
			w.U64(f);
		}
	}
	if (version >= kKeyValueVersion) {
		w.Var(key_value.size());
		for (auto &kv : key_value) {
			w.Str(kv.first);
			w.Str(kv.second);
		}
	}
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
		try {
			f.type = ReadType(r, m.version, 0);
		} catch (FormatError &e) {
			throw FormatError("column \"" + f.name + "\" has an invalid type: " + e.what());
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
			ReadChunkMeta(r, m, m.fields[c].name, m.fields[c].type, z.rows, true, z.chunks[c]);
		}
	}
	m.total_rows = rows;
	m.created_by = r.Str();
	if (!ValidUtf8(reinterpret_cast<const uint8_t *>(m.created_by.data()), m.created_by.size())) {
		throw FormatError("created_by is not valid UTF-8");
	}
	if (m.version >= kExactFloatSumVersion) {
		m.hash_fingerprints.resize(r.Count(8));
		if (!m.hash_fingerprints.empty() && m.hash_fingerprints.size() != nfields) {
			throw FormatError("footer has hash fingerprints for " + std::to_string(m.hash_fingerprints.size()) +
			                  " of " + std::to_string(nfields) + " columns");
		}
		for (auto &f : m.hash_fingerprints) {
			f = r.U64();
		}
	}
	if (m.version >= kKeyValueVersion) {
		m.key_value.resize(r.Count(2)); // two lengths at least
		for (auto &kv : m.key_value) {
			kv.first = r.Str();
			kv.second = r.Str();
		}
	}
	if (!r.AtEnd()) {
		throw FormatError("footer has unexpected trailing bytes");
	}
	return m;
}

} // namespace vtx
