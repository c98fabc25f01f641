#include "plan_serialization.hpp"

#include "../../format/bytes.hpp"
#include "../metadata_cache.hpp"

namespace vortex {

using namespace duckdb;

namespace {

//! Bytes in the format's own encoding (column types, predicates), as a list of bytes: the
//! binary serializer stores it compactly and the JSON one as numbers, never as text.
vector<uint8_t> Blob(const vtx::ByteWriter &w) {
	return vector<uint8_t>(w.data.begin(), w.data.end());
}

} // namespace

void SerializeFiles(Serializer &s, field_id_t id, const std::vector<ScanFile> &files) {
	s.WriteList(id, "files", files.size(), [&](Serializer::List &list, idx_t i) {
		list.WriteObject([&](Serializer &obj) {
			auto &f = files[i];
			obj.WriteProperty<string>(1, "path", f.path);
			// The version the plan was made from (plan_guard.cpp, SameFileVersion).
			obj.WriteProperty<uint64_t>(2, "file_size", f.meta->file_size);
			obj.WriteProperty<uint64_t>(3, "footer_size", f.meta->footer_size);
			obj.WriteProperty<uint32_t>(4, "footer_crc", f.meta->footer_crc);
		});
	});
}

std::vector<ScanFile> DeserializeFiles(Deserializer &d, field_id_t id) {
	auto &context = d.Get<ClientContext &>();
	std::vector<ScanFile> files;
	d.ReadList(id, "files", [&](Deserializer::List &list, idx_t) {
		list.ReadObject([&](Deserializer &obj) {
			ScanFile f;
			f.path = obj.ReadProperty<string>(1, "path");
			auto file_size = obj.ReadProperty<uint64_t>(2, "file_size");
			auto footer_size = obj.ReadProperty<uint64_t>(3, "footer_size");
			auto footer_crc = obj.ReadProperty<uint32_t>(4, "footer_crc");
			FileSource source(context, f.path);
			try {
				f.meta = GetMetadata(source);
			} catch (vtx::FormatError &e) {
				ThrowFileError(f.path, e);
			}
			if (f.meta->file_size != file_size || f.meta->footer_size != footer_size || f.meta->footer_crc != footer_crc) {
				throw IOException("vortex: file \"%s\" was replaced after the query was planned; run the query again",
				                  f.path);
			}
			files.push_back(std::move(f));
		});
	});
	return files;
}

void SerializeFields(Serializer &s, field_id_t id, const std::vector<vtx::Field> &fields,
                     const vector<LogicalType> &types) {
	s.WriteList(id, "fields", fields.size(), [&](Serializer::List &list, idx_t i) {
		list.WriteObject([&](Serializer &obj) {
			vtx::ByteWriter w;
			vtx::WriteColumnType(w, fields[i].type);
			obj.WriteProperty<string>(1, "name", fields[i].name);
			obj.WriteProperty<vector<uint8_t>>(2, "format_type", Blob(w));
		});
	});
	s.WriteProperty<vector<LogicalType>>(id + 1, "types", types);
}

void DeserializeFields(Deserializer &d, field_id_t id, std::vector<vtx::Field> &fields, vector<LogicalType> &types) {
	fields.clear();
	d.ReadList(id, "fields", [&](Deserializer::List &list, idx_t) {
		list.ReadObject([&](Deserializer &obj) {
			vtx::Field f;
			f.name = obj.ReadProperty<string>(1, "name");
			auto bytes = obj.ReadProperty<vector<uint8_t>>(2, "format_type");
			vtx::ByteReader r(bytes.data(), bytes.size(), "a serialized column type");
			f.type = vtx::ReadColumnType(r);
			fields.push_back(std::move(f));
		});
	});
	types = d.ReadProperty<vector<LogicalType>>(id + 1, "types");
	if (types.size() != fields.size()) {
		throw SerializationException("vortex: a serialized plan has %d column types for %d columns", types.size(),
		                             fields.size());
	}
}

void SerializeAggregates(Serializer &s, field_id_t id, const std::vector<PushedAggregate> &aggregates) {
	s.WriteList(id, "aggregates", aggregates.size(), [&](Serializer::List &list, idx_t i) {
		list.WriteObject([&](Serializer &obj) {
			auto &a = aggregates[i];
			obj.WriteProperty<uint8_t>(1, "kind", static_cast<uint8_t>(a.kind));
			obj.WriteProperty<idx_t>(2, "field", a.field);
			obj.WriteProperty<LogicalType>(3, "bound_type", a.bound_type);
			obj.WriteProperty<LogicalType>(4, "result_type", a.result_type);
			obj.WriteProperty<bool>(5, "skip_nans", a.skip_nans);
			obj.WriteProperty<bool>(6, "empty_is_null", a.empty_is_null);
			obj.WriteProperty<bool>(7, "non_finite_is_nan", a.non_finite_is_nan);
			obj.WriteProperty<string>(8, "display", a.display);
		});
	});
}

std::vector<PushedAggregate> DeserializeAggregates(Deserializer &d, field_id_t id) {
	std::vector<PushedAggregate> out;
	d.ReadList(id, "aggregates", [&](Deserializer::List &list, idx_t) {
		list.ReadObject([&](Deserializer &obj) {
			PushedAggregate a;
			auto kind = obj.ReadProperty<uint8_t>(1, "kind");
			if (kind >= kAggregateCount) {
				throw SerializationException("vortex: a serialized plan has an unknown pushed aggregate");
			}
			a.kind = static_cast<AggregateKind>(kind);
			a.field = obj.ReadProperty<idx_t>(2, "field");
			a.bound_type = obj.ReadProperty<LogicalType>(3, "bound_type");
			a.result_type = obj.ReadProperty<LogicalType>(4, "result_type");
			a.skip_nans = obj.ReadProperty<bool>(5, "skip_nans");
			a.empty_is_null = obj.ReadProperty<bool>(6, "empty_is_null");
			a.non_finite_is_nan = obj.ReadProperty<bool>(7, "non_finite_is_nan");
			a.display = obj.ReadProperty<string>(8, "display");
			out.push_back(std::move(a));
		});
	});
	return out;
}

void SerializeFilters(Serializer &s, field_id_t id, const std::vector<PushedFilter> &filters) {
	s.WriteList(id, "filters", filters.size(), [&](Serializer::List &list, idx_t i) {
		list.WriteObject([&](Serializer &obj) {
			vtx::ByteWriter w;
			filters[i].predicate.Serialize(w);
			obj.WriteProperty<idx_t>(1, "field", filters[i].field);
			obj.WriteProperty<vector<uint8_t>>(2, "predicate", Blob(w));
			obj.WriteProperty<string>(3, "display", filters[i].display);
		});
	});
}

std::vector<PushedFilter> DeserializeFilters(Deserializer &d, field_id_t id) {
	std::vector<PushedFilter> out;
	d.ReadList(id, "filters", [&](Deserializer::List &list, idx_t) {
		list.ReadObject([&](Deserializer &obj) {
			PushedFilter f;
			f.field = obj.ReadProperty<idx_t>(1, "field");
			auto bytes = obj.ReadProperty<vector<uint8_t>>(2, "predicate");
			vtx::ByteReader r(bytes.data(), bytes.size(), "a serialized predicate");
			f.predicate = vtx::compute::Predicate::Deserialize(r);
			f.display = obj.ReadProperty<string>(3, "display");
			out.push_back(std::move(f));
		});
	});
	return out;
}

void SerializeLeaves(Serializer &s, field_id_t id, const std::vector<StructLeaf> &leaves) {
	s.WriteList(id, "leaves", leaves.size(), [&](Serializer::List &list, idx_t i) {
		list.WriteObject([&](Serializer &obj) {
			auto &leaf = leaves[i];
			vtx::ByteWriter w;
			vtx::WriteColumnType(w, leaf.type);
			obj.WriteProperty<idx_t>(1, "field", leaf.field);
			obj.WriteProperty<vector<idx_t>>(2, "route", vector<idx_t>(leaf.route.begin(), leaf.route.end()));
			obj.WriteProperty<vector<uint8_t>>(3, "format_type", Blob(w));
			obj.WriteProperty<LogicalType>(4, "type", leaf.logical);
		});
	});
}

std::vector<StructLeaf> DeserializeLeaves(Deserializer &d, field_id_t id) {
	std::vector<StructLeaf> out;
	d.ReadList(id, "leaves", [&](Deserializer::List &list, idx_t) {
		list.ReadObject([&](Deserializer &obj) {
			StructLeaf leaf;
			leaf.field = obj.ReadProperty<idx_t>(1, "field");
			auto route = obj.ReadProperty<vector<idx_t>>(2, "route");
			leaf.route.assign(route.begin(), route.end());
			auto bytes = obj.ReadProperty<vector<uint8_t>>(3, "format_type");
			vtx::ByteReader r(bytes.data(), bytes.size(), "a serialized column type");
			leaf.type = vtx::ReadColumnType(r);
			leaf.logical = obj.ReadProperty<LogicalType>(4, "type");
			out.push_back(std::move(leaf));
		});
	});
	return out;
}

void SerializeHive(Serializer &s, field_id_t id, const HivePartitions &hive) {
	s.WriteProperty<vector<string>>(id, "hive_keys", vector<string>(hive.keys.begin(), hive.keys.end()));
	s.WriteProperty<vector<LogicalType>>(id + 1, "hive_types", hive.types);
	s.WriteList(id + 2, "hive_values", hive.values.size(), [&](Serializer::List &list, idx_t i) {
		list.WriteElement(hive.values[i]);
	});
}

HivePartitions DeserializeHive(Deserializer &d, field_id_t id) {
	HivePartitions hive;
	auto keys = d.ReadProperty<vector<string>>(id, "hive_keys");
	hive.keys.assign(keys.begin(), keys.end());
	hive.types = d.ReadProperty<vector<LogicalType>>(id + 1, "hive_types");
	d.ReadList(id + 2, "hive_values", [&](Deserializer::List &list, idx_t) {
		hive.values.push_back(list.ReadElement<vector<Value>>());
	});
	return hive;
}

void SerializeFileColumns(Serializer &s, field_id_t id, const FileColumns &columns) {
	s.WriteProperty<idx_t>(id, "field_count", columns.field_count);
	SerializeHive(s, id + 1, columns.hive); // id + 1 .. id + 3
	s.WriteProperty<bool>(id + 4, "filename_column", columns.filename_column);
}

FileColumns DeserializeFileColumns(Deserializer &d, field_id_t id) {
	FileColumns columns;
	columns.field_count = d.ReadProperty<idx_t>(id, "field_count");
	columns.hive = DeserializeHive(d, id + 1);
	columns.filename_column = d.ReadProperty<bool>(id + 4, "filename_column");
	return columns;
}

unique_ptr<FunctionData> RefusePlantedBind(ClientContext &, TableFunctionBindInput &input, vector<LogicalType> &,
                                           vector<string> &) {
	throw BinderException("%s is not for queries: the vortex optimizer plants it in plans, where it stands for an "
	                      "aggregate answered by vortex_scan",
	                      input.table_function.name);
}

} // namespace vortex
