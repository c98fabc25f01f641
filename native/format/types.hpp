// Column types of the .vtx format. The format knows logical types only as far as it
// must to store and describe them: a physical width, signedness, and whether values
// have an order that zone statistics (min/max) may describe.
#pragma once
#include <cstdint>
#include <string>

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
};

//! How values of a type are laid out and compared.
enum class PhysicalKind : uint8_t {
	SIGNED,   //! two's complement integer of `width` bytes
	UNSIGNED, //! unsigned integer of `width` bytes
	FLOAT,    //! IEEE-754 of `width` bytes (4 or 8)
	OPAQUE,   //! fixed-width bytes with no numeric order (INTERVAL, TIME_TZ)
	STRING,   //! variable-length bytes, ordered bytewise
};

struct ColumnType {
	TypeId id = TypeId::INT64;
	uint8_t width = 0; //! DECIMAL precision
	uint8_t scale = 0; //! DECIMAL scale

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
	bool operator==(const ColumnType &o) const {
		return id == o.id && width == o.width && scale == o.scale;
	}
	bool operator!=(const ColumnType &o) const {
		return !(*this == o);
	}
};

} // namespace vtx
