#include "type_mapping.hpp"

#include "duckdb_compat.hpp"

#include <cstring>

namespace vortex {

using namespace duckdb;
using vtx::TypeId;

namespace {

bool ToNestedColumnType(const LogicalType &type, vtx::ColumnType &out) {
	auto info = std::make_shared<vtx::NestedInfo>();
	auto add = [&](const std::string &name, const LogicalType &child) {
		vtx::Field f;
		f.name = name;
		if (!ToColumnType(child, f.type)) {
			return false;
		}
		info->children.push_back(std::move(f));
		return true;
	};
	switch (type.id()) {
	case LogicalTypeId::STRUCT: {
		// row(...) values: their fields have no names, and come back without (format version 6).
		// (DuckDB calls a struct unnamed by its first field's name; all must be empty to drop them.)
		bool unnamed = StructType::IsUnnamed(type);
		for (auto &child : StructType::GetChildTypes(type)) {
			unnamed = unnamed && child.first.empty();
		}
		out.id = TypeId::STRUCT;
		out.width = unnamed ? 1 : 0;
		for (auto &child : StructType::GetChildTypes(type)) {
			if (!add(unnamed ? std::string() : child.first, child.second)) {
				return false;
			}
		}
		break;
	}
	case LogicalTypeId::UNION:
		out.id = TypeId::UNION;
		for (idx_t i = 0; i < UnionType::GetMemberCount(type); i++) {
			if (!add(UnionType::GetMemberName(type, i), UnionType::GetMemberType(type, i))) {
				return false;
			}
		}
		break;
	case LogicalTypeId::LIST:
		out.id = TypeId::LIST;
		if (!add("element", ListType::GetChildType(type))) {
			return false;
		}
		break;
	case LogicalTypeId::MAP:
		out.id = TypeId::MAP;
		if (!add("key", MapType::KeyType(type)) || !add("value", MapType::ValueType(type))) {
			return false;
		}
		break;
	case LogicalTypeId::ARRAY:
		out.id = TypeId::ARRAY;
		info->array_size = ArrayType::GetSize(type);
		if (!add("element", ArrayType::GetChildType(type))) {
			return false;
		}
		break;
	case LogicalTypeId::ENUM: {
		out.id = TypeId::ENUM;
		auto n = EnumType::GetSize(type);
		auto &values = EnumType::GetValuesInsertOrder(type);
		auto data = FlatVector::GetData<string_t>(values);
		info->enum_values.reserve(n);
		for (idx_t i = 0; i < n; i++) {
			info->enum_values.push_back(data[i].GetString());
		}
		if (type.HasAlias()) {
			info->enum_name = type.GetAlias();
		}
		switch (type.InternalType()) {
		case PhysicalType::UINT8: out.width = 1; break;
		case PhysicalType::UINT16: out.width = 2; break;
		default: out.width = 4; break;
		}
		break;
	}
	default:
		return false;
	}
	out.nested = std::move(info);
	return out.Valid();
}

} // namespace

bool ToColumnType(const LogicalType &type, vtx::ColumnType &out) {
	out = vtx::ColumnType();
	if (compat::IsGeometry(type)) {
		// Its values are WKB (DuckDB 1.5 keeps them so); the CRS is part of the type, as in Parquet.
		out.id = TypeId::GEOMETRY;
		auto crs = compat::GeometryCrs(type);
		if (!crs.empty()) {
			auto info = std::make_shared<vtx::NestedInfo>();
			info->crs = std::move(crs);
			out.nested = std::move(info);
		}
		return true;
	}
	switch (type.id()) {
	case LogicalTypeId::BOOLEAN: out.id = TypeId::BOOL; break;
	case LogicalTypeId::TINYINT: out.id = TypeId::INT8; break;
	case LogicalTypeId::SMALLINT: out.id = TypeId::INT16; break;
	case LogicalTypeId::INTEGER: out.id = TypeId::INT32; break;
	case LogicalTypeId::BIGINT: out.id = TypeId::INT64; break;
	case LogicalTypeId::HUGEINT: out.id = TypeId::INT128; break;
	case LogicalTypeId::UTINYINT: out.id = TypeId::UINT8; break;
	case LogicalTypeId::USMALLINT: out.id = TypeId::UINT16; break;
	case LogicalTypeId::UINTEGER: out.id = TypeId::UINT32; break;
	case LogicalTypeId::UBIGINT: out.id = TypeId::UINT64; break;
	case LogicalTypeId::UHUGEINT: out.id = TypeId::UINT128; break;
	case LogicalTypeId::FLOAT: out.id = TypeId::FLOAT; break;
	case LogicalTypeId::DOUBLE: out.id = TypeId::DOUBLE; break;
	case LogicalTypeId::DECIMAL:
		out.id = TypeId::DECIMAL;
		out.width = DecimalType::GetWidth(type);
		out.scale = DecimalType::GetScale(type);
		break;
	case LogicalTypeId::VARCHAR:
		// A collation belongs to a query, not to stored bytes; JSON is text DuckDB treats as such.
		out.id = type.IsJSONType() ? TypeId::JSON : TypeId::VARCHAR;
		break;
	case LogicalTypeId::BLOB: out.id = TypeId::BLOB; break;
	case LogicalTypeId::BIT: out.id = TypeId::BIT; break;
	case LogicalTypeId::DATE: out.id = TypeId::DATE; break;
	case LogicalTypeId::TIME: out.id = TypeId::TIME; break;
	case LogicalTypeId::TIME_NS: out.id = TypeId::TIME_NS; break;
	case LogicalTypeId::TIMESTAMP: out.id = TypeId::TIMESTAMP; break;
	case LogicalTypeId::TIMESTAMP_SEC: out.id = TypeId::TIMESTAMP_S; break;
	case LogicalTypeId::TIMESTAMP_MS: out.id = TypeId::TIMESTAMP_MS; break;
	case LogicalTypeId::TIMESTAMP_NS: out.id = TypeId::TIMESTAMP_NS; break;
	case LogicalTypeId::TIMESTAMP_TZ: out.id = TypeId::TIMESTAMP_TZ; break;
	case LogicalTypeId::UUID: out.id = TypeId::UUID; break;
	case LogicalTypeId::INTERVAL: out.id = TypeId::INTERVAL; break;
	case LogicalTypeId::TIME_TZ: out.id = TypeId::TIME_TZ; break;
	case LogicalTypeId::STRUCT:
	case LogicalTypeId::UNION:
	case LogicalTypeId::LIST:
	case LogicalTypeId::MAP:
	case LogicalTypeId::ARRAY:
	case LogicalTypeId::ENUM:
		return ToNestedColumnType(type, out);
	default:
		return false;
	}
	// Other aliased/user types keep their storage but not their alias.
	return true;
}

LogicalType ToLogicalType(const vtx::ColumnType &type) {
	switch (type.id) {
	case TypeId::BOOL: return LogicalType::BOOLEAN;
	case TypeId::INT8: return LogicalType::TINYINT;
	case TypeId::INT16: return LogicalType::SMALLINT;
	case TypeId::INT32: return LogicalType::INTEGER;
	case TypeId::INT64: return LogicalType::BIGINT;
	case TypeId::INT128: return LogicalType::HUGEINT;
	case TypeId::UINT8: return LogicalType::UTINYINT;
	case TypeId::UINT16: return LogicalType::USMALLINT;
	case TypeId::UINT32: return LogicalType::UINTEGER;
	case TypeId::UINT64: return LogicalType::UBIGINT;
	case TypeId::UINT128: return LogicalType::UHUGEINT;
	case TypeId::FLOAT: return LogicalType::FLOAT;
	case TypeId::DOUBLE: return LogicalType::DOUBLE;
	case TypeId::DECIMAL: return LogicalType::DECIMAL(type.width, type.scale);
	case TypeId::VARCHAR: return LogicalType::VARCHAR;
	case TypeId::BLOB: return LogicalType::BLOB;
	case TypeId::JSON: return LogicalType::JSON();
	case TypeId::BIT: return LogicalType::BIT;
	case TypeId::DATE: return LogicalType::DATE;
	case TypeId::TIME: return LogicalType::TIME;
	case TypeId::TIME_NS: return LogicalType::TIME_NS;
	case TypeId::TIMESTAMP: return LogicalType::TIMESTAMP;
	case TypeId::TIMESTAMP_S: return LogicalType::TIMESTAMP_S;
	case TypeId::TIMESTAMP_MS: return LogicalType::TIMESTAMP_MS;
	case TypeId::TIMESTAMP_NS: return LogicalType::TIMESTAMP_NS;
	case TypeId::TIMESTAMP_TZ: return LogicalType::TIMESTAMP_TZ;
	case TypeId::UUID: return LogicalType::UUID;
	case TypeId::INTERVAL: return LogicalType::INTERVAL;
	case TypeId::TIME_TZ: return LogicalType::TIME_TZ;
	case TypeId::GEOMETRY: return compat::GeometryType(type.Crs());
	case TypeId::STRUCT:
	case TypeId::UNION: {
		child_list_t<LogicalType> children;
		for (auto &c : type.Children()) {
			children.emplace_back(c.name, ToLogicalType(c.type));
		}
		return type.id == TypeId::STRUCT ? LogicalType::STRUCT(std::move(children))
		                                 : LogicalType::UNION(std::move(children));
	}
	case TypeId::LIST: return LogicalType::LIST(ToLogicalType(type.Children()[0].type));
	case TypeId::MAP:
		return LogicalType::MAP(ToLogicalType(type.Children()[0].type), ToLogicalType(type.Children()[1].type));
	case TypeId::ARRAY:
		return LogicalType::ARRAY(ToLogicalType(type.Children()[0].type), type.nested->array_size);
	case TypeId::ENUM: {
		auto &values = type.nested->enum_values;
		Vector dict(LogicalType::VARCHAR, values.size());
		auto data = FlatVector::GetData<string_t>(dict);
		for (idx_t i = 0; i < values.size(); i++) {
			data[i] = StringVector::AddString(dict, values[i]);
		}
		auto result = LogicalType::ENUM(dict, values.size());
		if (!type.nested->enum_name.empty()) {
			result.SetAlias(type.nested->enum_name);
		}
		return result;
	}
	}
	throw InternalException("vortex: unmapped column type");
}

namespace {
template <class T>
T Load(const std::string &raw) {
	if (raw.size() != sizeof(T)) {
		throw InternalException("vortex: statistic has the wrong width");
	}
	T v;
	std::memcpy(&v, raw.data(), sizeof(T));
	return v;
}

} // namespace

hugeint_t ToHugeint(vtx::int128 v) {
	hugeint_t h;
	h.lower = static_cast<uint64_t>(v);
	h.upper = static_cast<int64_t>(v >> 64);
	return h;
}

Value RawToValue(const LogicalType &type, const std::string &raw) {
	if (compat::IsGeometry(type) || type.id() == LogicalTypeId::BIT) {
		// Its values are bytes (a GEOMETRY's WKB, a BIT's padding byte and bits), of the column's type.
		auto value = Value::BLOB(const_data_ptr_cast(raw.data()), raw.size());
		value.Reinterpret(type);
		return value;
	}
	switch (type.id()) {
	case LogicalTypeId::BOOLEAN: return Value::BOOLEAN(Load<uint8_t>(raw) != 0);
	case LogicalTypeId::TINYINT: return Value::TINYINT(Load<int8_t>(raw));
	case LogicalTypeId::SMALLINT: return Value::SMALLINT(Load<int16_t>(raw));
	case LogicalTypeId::INTEGER: return Value::INTEGER(Load<int32_t>(raw));
	case LogicalTypeId::BIGINT: return Value::BIGINT(Load<int64_t>(raw));
	case LogicalTypeId::HUGEINT: return Value::HUGEINT(ToHugeint(Load<vtx::int128>(raw)));
	case LogicalTypeId::UTINYINT: return Value::UTINYINT(Load<uint8_t>(raw));
	case LogicalTypeId::USMALLINT: return Value::USMALLINT(Load<uint16_t>(raw));
	case LogicalTypeId::UINTEGER: return Value::UINTEGER(Load<uint32_t>(raw));
	case LogicalTypeId::UBIGINT: return Value::UBIGINT(Load<uint64_t>(raw));
	case LogicalTypeId::UHUGEINT: {
		auto v = Load<vtx::uint128>(raw);
		uhugeint_t u;
		u.lower = static_cast<uint64_t>(v);
		u.upper = static_cast<uint64_t>(v >> 64);
		return Value::UHUGEINT(u);
	}
	case LogicalTypeId::FLOAT: return Value::FLOAT(Load<float>(raw));
	case LogicalTypeId::DOUBLE: return Value::DOUBLE(Load<double>(raw));
	case LogicalTypeId::DECIMAL: {
		auto w = DecimalType::GetWidth(type), s = DecimalType::GetScale(type);
		switch (type.InternalType()) {
		case PhysicalType::INT16: return Value::DECIMAL(Load<int16_t>(raw), w, s);
		case PhysicalType::INT32: return Value::DECIMAL(Load<int32_t>(raw), w, s);
		case PhysicalType::INT64: return Value::DECIMAL(Load<int64_t>(raw), w, s);
		default: return Value::DECIMAL(ToHugeint(Load<vtx::int128>(raw)), w, s);
		}
	}
	case LogicalTypeId::VARCHAR: return Value(raw);
	case LogicalTypeId::BLOB: return Value::BLOB(const_data_ptr_cast(raw.data()), raw.size());
	case LogicalTypeId::DATE: return Value::DATE(date_t(Load<int32_t>(raw)));
	case LogicalTypeId::TIME: return Value::TIME(dtime_t(Load<int64_t>(raw)));
	case LogicalTypeId::TIME_NS: return Value::TIME_NS(dtime_ns_t(Load<int64_t>(raw)));
	case LogicalTypeId::TIMESTAMP: return Value::TIMESTAMP(timestamp_t(Load<int64_t>(raw)));
	case LogicalTypeId::TIMESTAMP_SEC: return Value::TIMESTAMPSEC(timestamp_sec_t(Load<int64_t>(raw)));
	case LogicalTypeId::TIMESTAMP_MS: return Value::TIMESTAMPMS(timestamp_ms_t(Load<int64_t>(raw)));
	case LogicalTypeId::TIMESTAMP_NS: return Value::TIMESTAMPNS(timestamp_ns_t(Load<int64_t>(raw)));
	case LogicalTypeId::TIMESTAMP_TZ: return Value::TIMESTAMPTZ(timestamp_tz_t(Load<int64_t>(raw)));
	case LogicalTypeId::UUID: return Value::UUID(ToHugeint(Load<vtx::int128>(raw)));
	default:
		throw InternalException("vortex: no value conversion for " + type.ToString());
	}
}

bool IsPlainInteger(const LogicalType &type) {
	switch (type.id()) {
	case LogicalTypeId::TINYINT:
	case LogicalTypeId::SMALLINT:
	case LogicalTypeId::INTEGER:
	case LogicalTypeId::BIGINT:
	case LogicalTypeId::UTINYINT:
	case LogicalTypeId::USMALLINT:
	case LogicalTypeId::UINTEGER:
	case LogicalTypeId::UBIGINT: return true;
	default: return false;
	}
}

bool IsFloatType(const LogicalType &type) {
	return type.id() == LogicalTypeId::FLOAT || type.id() == LogicalTypeId::DOUBLE;
}

} // namespace vortex
