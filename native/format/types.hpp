// Column types of the .vtx format. The format knows logical types only as far as it
// must to store and describe them: a physical width, signedness, and whether values
// have an order that zone statistics (min/max) may describe.
//
// Nested types (format version 3) are trees. Every node is stored as one stream of a plain
// storage type, and its children as streams of their own: a STRUCT, ARRAY or UNION node as
// its validity (BOOLEAN; a UNION's values are its tags), a LIST or MAP node as its lengths
// (UBIGINT), an ENUM as its codes (UTINYINT, USMALLINT or UINTEGER).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace vtx {

using int128 = __int128;
using uint128 = unsigned __int128;

enum class TypeId : uint8_t {
	BOOL = 1,
	INT8 = 2,
	INT16 = 3,
	INT32 = 4,
	INT64 = 5,
	INT128 = 6,
	UINT8 = 7,
	UINT16 = 8,
	UINT32 = 9,
	UINT64 = 10,
	UINT128 = 11,
	FLOAT = 12,
	DOUBLE = 13,
	DECIMAL = 14,
	VARCHAR = 15,
	BLOB = 16,
	DATE = 17,
	TIME = 18,
	TIMESTAMP = 19,
	TIMESTAMP_S = 20,
	TIMESTAMP_MS = 21,
	TIMESTAMP_NS = 22,
	TIMESTAMP_TZ = 23,
	UUID = 24,
	INTERVAL = 25,
	TIME_TZ = 26,
	STRUCT = 27, //! children: the fields
	LIST = 28,   //! children: the element
	MAP = 29,    //! children: key, value
	ARRAY = 30,  //! children: the element; NestedInfo::array_size elements per row
	ENUM = 31,   //! width: bytes per code (1, 2 or 4); NestedInfo::enum_values
	UNION = 32,  //! children: the members
	TIME_NS = 33, //! format version 6: i64 nanoseconds since midnight
	GEOMETRY = 34, //! format version 7: WKB bytes; NestedInfo::crs where the type names one
	JSON = 35,     //! format version 8: UTF-8 text, stored as VARCHAR is
	BIT = 36,      //! format version 8: DuckDB's bit strings (a padding byte, then the bits), stored as BLOB is
};

struct NestedInfo;
struct Field;

//! How values of a type are laid out and compared.
enum class PhysicalKind : uint8_t {
	SIGNED,   //! two's complement integer of `width` bytes
	UNSIGNED, //! unsigned integer of `width` bytes
	FLOAT,    //! IEEE-754 of `width` bytes (4 or 8)
	OPAQUE,   //! fixed-width bytes with no numeric order (INTERVAL, TIME_TZ; nested and ENUM nodes)
	STRING,   //! variable-length bytes, ordered bytewise
};

struct ColumnType {
	TypeId id = TypeId::INT64;
	uint8_t width = 0; //! DECIMAL precision; ENUM bytes per code; STRUCT 1: unnamed (version 6)
	uint8_t scale = 0; //! DECIMAL scale
	std::shared_ptr<const NestedInfo> nested; //! nested types and ENUM; GEOMETRY with a CRS

	//! Text whose bytes must be valid UTF-8.
	bool IsUtf8() const {
		return id == TypeId::VARCHAR || id == TypeId::JSON;
	}
	bool IsNested() const {
		return id == TypeId::STRUCT || id == TypeId::LIST || id == TypeId::MAP || id == TypeId::ARRAY ||
		       id == TypeId::UNION;
	}
	//! Types only format version 3 describes.
	bool NeedsVersion3() const {
		return IsNested() || id == TypeId::ENUM;
	}
	//! A STRUCT whose fields have no names (DuckDB's row(...)): every field name is empty.
	bool IsUnnamedStruct() const {
		return id == TypeId::STRUCT && width == 1;
	}
	//! The coordinate reference system of a GEOMETRY (empty where it names none).
	const std::string &Crs() const;
	//! How a path names child i of this node: ".name", or "[i + 1]" for an unnamed STRUCT's field
	//! (as DuckDB's r[1] selects it).
	std::string ChildPath(size_t i) const;
	//! The plain type this node's own stream is encoded as (itself for plain types).
	ColumnType Storage() const;
	//! Children of a nested node (empty for others).
	const std::vector<Field> &Children() const;

	PhysicalKind Kind() const;
	//! Bytes per value for fixed-width kinds; 0 for strings.
	uint32_t ByteWidth() const;
	//! Whether min/max statistics are kept (an order exists that readers may rely on).
	bool Ordered() const {
		auto k = Kind();
		return k == PhysicalKind::SIGNED || k == PhysicalKind::UNSIGNED || k == PhysicalKind::FLOAT ||
		       k == PhysicalKind::STRING;
	}
	bool IsFloat() const {
		return Kind() == PhysicalKind::FLOAT;
	}
	bool IsString() const {
		return Kind() == PhysicalKind::STRING;
	}
	//! Integer-like kinds whose exact sum is kept in zone statistics (at most 64 bits wide).
	bool HasIntegerSum() const {
		auto k = Kind();
		return (k == PhysicalKind::SIGNED || k == PhysicalKind::UNSIGNED) && ByteWidth() <= 8;
	}
	bool Valid() const;
	std::string ToString() const;
	bool operator==(const ColumnType &o) const;
	bool operator!=(const ColumnType &o) const {
		return !(*this == o);
	}
};

struct Field {
	std::string name;
	ColumnType type;
};

struct NestedInfo {
	std::vector<Field> children;
	uint64_t array_size = 0;              //! ARRAY
	std::vector<std::string> enum_values; //! ENUM, in code order
	std::string enum_name;                //! ENUM: the type's name where it has one (CREATE TYPE)
	std::string crs;                      //! GEOMETRY: its coordinate reference system, as DuckDB names it
};

//! Deepest nesting a file may declare (readers recurse over it).
constexpr int kMaxTypeDepth = 64;
//! Most children (fields, members) a nested node may have, and most values an ENUM may have.
constexpr uint64_t kMaxChildren = 1 << 16;
constexpr uint64_t kMaxEnumValues = uint64_t(1) << 32;

} // namespace vtx
