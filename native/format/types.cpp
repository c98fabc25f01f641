#include "types.hpp"

namespace vtx {

PhysicalKind ColumnType::Kind() const {
	switch (id) {
	case TypeId::BOOL:
	case TypeId::UINT8:
	case TypeId::UINT16:
	case TypeId::UINT32:
	case TypeId::UINT64:
	case TypeId::UINT128:
		return PhysicalKind::UNSIGNED;
	case TypeId::FLOAT:
	case TypeId::DOUBLE:
		return PhysicalKind::FLOAT;
	case TypeId::VARCHAR:
	case TypeId::BLOB:
		return PhysicalKind::STRING;
	case TypeId::INTERVAL:
	case TypeId::TIME_TZ:
		return PhysicalKind::OPAQUE;
	default:
		return PhysicalKind::SIGNED;
	}
}

uint32_t ColumnType::ByteWidth() const {
	switch (id) {
	case TypeId::BOOL:
	case TypeId::INT8:
	case TypeId::UINT8:
		return 1;
	case TypeId::INT16:
	case TypeId::UINT16:
		return 2;
	case TypeId::INT32:
	case TypeId::UINT32:
	case TypeId::FLOAT:
	case TypeId::DATE:
		return 4;
	case TypeId::INT64:
	case TypeId::UINT64:
	case TypeId::DOUBLE:
	case TypeId::TIME:
	case TypeId::TIMESTAMP:
	case TypeId::TIMESTAMP_S:
	case TypeId::TIMESTAMP_MS:
	case TypeId::TIMESTAMP_NS:
	case TypeId::TIMESTAMP_TZ:
	case TypeId::TIME_TZ:
		return 8;
	case TypeId::INT128:
	case TypeId::UINT128:
	case TypeId::UUID:
	case TypeId::INTERVAL:
		return 16;
	case TypeId::DECIMAL:
		// Same physical widths DuckDB uses for each precision range.
		return width <= 4 ? 2 : width <= 9 ? 4 : width <= 18 ? 8 : 16;
	case TypeId::VARCHAR:
	case TypeId::BLOB:
		return 0;
	}
	return 0;
}

bool ColumnType::Valid() const {
	auto raw = static_cast<uint8_t>(id);
	if (raw < 1 || raw > static_cast<uint8_t>(TypeId::TIME_TZ)) {
		return false;
	}
	if (id == TypeId::DECIMAL) {
		return width >= 1 && width <= 38 && scale <= width;
	}
	return width == 0 && scale == 0;
}

std::string ColumnType::ToString() const {
	switch (id) {
	case TypeId::BOOL: return "BOOLEAN";
	case TypeId::INT8: return "TINYINT";
	case TypeId::INT16: return "SMALLINT";
	case TypeId::INT32: return "INTEGER";
	case TypeId::INT64: return "BIGINT";
	case TypeId::INT128: return "HUGEINT";
	case TypeId::UINT8: return "UTINYINT";
	case TypeId::UINT16: return "USMALLINT";
	case TypeId::UINT32: return "UINTEGER";
	case TypeId::UINT64: return "UBIGINT";
	case TypeId::UINT128: return "UHUGEINT";
	case TypeId::FLOAT: return "FLOAT";
	case TypeId::DOUBLE: return "DOUBLE";
	case TypeId::DECIMAL: return "DECIMAL(" + std::to_string(width) + "," + std::to_string(scale) + ")";
	case TypeId::VARCHAR: return "VARCHAR";
	case TypeId::BLOB: return "BLOB";
	case TypeId::DATE: return "DATE";
	case TypeId::TIME: return "TIME";
	case TypeId::TIMESTAMP: return "TIMESTAMP";
	case TypeId::TIMESTAMP_S: return "TIMESTAMP_S";
	case TypeId::TIMESTAMP_MS: return "TIMESTAMP_MS";
	case TypeId::TIMESTAMP_NS: return "TIMESTAMP_NS";
	case TypeId::TIMESTAMP_TZ: return "TIMESTAMP WITH TIME ZONE";
	case TypeId::UUID: return "UUID";
	case TypeId::INTERVAL: return "INTERVAL";
	case TypeId::TIME_TZ: return "TIME WITH TIME ZONE";
	}
	return "UNKNOWN";
}

} // namespace vtx
