#include "types.hpp"

namespace vtx {

PhysicalKind ColumnType::Kind() const {
	if (NeedsVersion3()) {
		return PhysicalKind::OPAQUE; // a node's values are not its stream's (Storage())
	}
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
	case TypeId::GEOMETRY:
	case TypeId::JSON:
	case TypeId::BIT:
		return PhysicalKind::STRING;
	case TypeId::INTERVAL:
	case TypeId::TIME_TZ:
		return PhysicalKind::OPAQUE;
	default:
		return PhysicalKind::SIGNED;
	}
}

ColumnType ColumnType::Storage() const {
	ColumnType s;
	switch (id) {
	case TypeId::STRUCT:
	case TypeId::ARRAY:
		s.id = TypeId::BOOL;
		return s;
	case TypeId::UNION:
		s.id = TypeId::UINT8;
		return s;
	case TypeId::LIST:
	case TypeId::MAP:
		s.id = TypeId::UINT64;
		return s;
	case TypeId::ENUM:
		s.id = width == 1 ? TypeId::UINT8 : width == 2 ? TypeId::UINT16 : TypeId::UINT32;
		return s;
	default:
		return *this;
	}
}

std::string ColumnType::ChildPath(size_t i) const {
	return IsUnnamedStruct() ? "[" + std::to_string(i + 1) + "]" : "." + Children()[i].name;
}

const std::string &ColumnType::Crs() const {
	static const std::string none;
	return nested && id == TypeId::GEOMETRY ? nested->crs : none;
}

const std::vector<Field> &ColumnType::Children() const {
	static const std::vector<Field> none;
	return nested && IsNested() ? nested->children : none;
}

bool ColumnType::operator==(const ColumnType &o) const {
	if (id != o.id || width != o.width || scale != o.scale) {
		return false;
	}
	if (id == TypeId::GEOMETRY) {
		return Crs() == o.Crs();
	}
	if (!NeedsVersion3() || nested == o.nested) {
		return true;
	}
	if (!nested || !o.nested || nested->array_size != o.nested->array_size ||
	    nested->enum_values != o.nested->enum_values ||
	    nested->enum_name != o.nested->enum_name || nested->children.size() != o.nested->children.size()) {
		return false;
	}
	for (size_t i = 0; i < nested->children.size(); i++) {
		auto &a = nested->children[i], &b = o.nested->children[i];
		if (a.name != b.name || a.type != b.type) {
			return false;
		}
	}
	return true;
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
	case TypeId::TIME_NS:
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
	case TypeId::GEOMETRY:
	case TypeId::JSON:
	case TypeId::BIT:
		return 0;
	case TypeId::STRUCT:
	case TypeId::LIST:
	case TypeId::MAP:
	case TypeId::ARRAY:
	case TypeId::ENUM:
	case TypeId::UNION:
		return Storage().ByteWidth();
	}
	return 0;
}

bool ColumnType::Valid() const {
	auto raw = static_cast<uint8_t>(id);
	if (raw < 1 || raw > static_cast<uint8_t>(TypeId::BIT)) {
		return false;
	}
	if (id == TypeId::GEOMETRY) {
		// A CRS travels in `nested`, which then holds nothing else.
		return width == 0 && scale == 0 &&
		       (!nested || (!nested->crs.empty() && nested->children.empty() && nested->array_size == 0 &&
		                    nested->enum_values.empty() && nested->enum_name.empty()));
	}
	if (id == TypeId::DECIMAL) {
		return width >= 1 && width <= 38 && scale <= width;
	}
	if (id == TypeId::ENUM) {
		if (!nested || scale != 0 || (width != 1 && width != 2 && width != 4) || !nested->children.empty() ||
		    !nested->crs.empty()) {
			return false;
		}
		// The narrowest code width DuckDB would use for this many values.
		auto n = nested->enum_values.size();
		uint8_t needed = n <= 0xFF ? 1 : n <= 0xFFFF ? 2 : 4;
		return n >= 1 && n <= kMaxEnumValues && width == needed;
	}
	if (IsNested()) {
		if (!nested || (width != 0 && !IsUnnamedStruct()) || scale != 0 || !nested->enum_values.empty() ||
		    !nested->enum_name.empty() || !nested->crs.empty()) {
			return false;
		}
		auto n = nested->children.size();
		if (IsUnnamedStruct()) {
			for (auto &c : nested->children) {
				if (!c.name.empty()) {
					return false;
				}
			}
		}
		switch (id) {
		case TypeId::STRUCT: return n >= 1 && n <= kMaxChildren && nested->array_size == 0;
		case TypeId::UNION: return n >= 1 && n <= 255 && nested->array_size == 0;
		case TypeId::LIST: return n == 1 && nested->array_size == 0;
		case TypeId::MAP: return n == 2 && nested->array_size == 0;
		default: return n == 1 && nested->array_size >= 1 && nested->array_size <= (uint64_t(1) << 20);
		}
	}
	return width == 0 && scale == 0 && !nested;
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
	case TypeId::TIME_NS: return "TIME_NS";
	case TypeId::GEOMETRY: return Crs().empty() ? "GEOMETRY" : "GEOMETRY('" + Crs() + "')";
	case TypeId::JSON: return "JSON";
	case TypeId::BIT: return "BIT";
	case TypeId::TIMESTAMP: return "TIMESTAMP";
	case TypeId::TIMESTAMP_S: return "TIMESTAMP_S";
	case TypeId::TIMESTAMP_MS: return "TIMESTAMP_MS";
	case TypeId::TIMESTAMP_NS: return "TIMESTAMP_NS";
	case TypeId::TIMESTAMP_TZ: return "TIMESTAMP WITH TIME ZONE";
	case TypeId::UUID: return "UUID";
	case TypeId::INTERVAL: return "INTERVAL";
	case TypeId::TIME_TZ: return "TIME WITH TIME ZONE";
	case TypeId::STRUCT:
	case TypeId::UNION: {
		std::string out = id == TypeId::STRUCT ? "STRUCT(" : "UNION(";
		for (size_t i = 0; i < Children().size(); i++) {
			out += (i ? ", " : "") + (IsUnnamedStruct() ? "" : Children()[i].name + " ") + Children()[i].type.ToString();
		}
		return out + ")";
	}
	case TypeId::LIST: return Children().at(0).type.ToString() + "[]";
	case TypeId::MAP: return "MAP(" + Children().at(0).type.ToString() + ", " + Children().at(1).type.ToString() + ")";
	case TypeId::ARRAY:
		return Children().at(0).type.ToString() + "[" + std::to_string(nested->array_size) + "]";
	case TypeId::ENUM: return "ENUM(" + std::to_string(nested ? nested->enum_values.size() : 0) + " values)";
	}
	return "UNKNOWN";
}

} // namespace vtx
