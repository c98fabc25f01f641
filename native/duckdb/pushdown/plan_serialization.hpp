// Serialization of what the optimizer rule plants in a plan (the pushed and grouped scans'
// bind data), with DuckDB's own Serializer, so that plans round-trip as DuckDB's verifier
// (PRAGMA verify_serializer, enable_verification) and plan copies require. The files are not
// carried as footers: deserialization reads each footer again and refuses a file that is no
// longer the version the plan was made from, as execution does for a file replaced after
// planning (plan_guard.hpp).
#pragma once
#include "plan.hpp"
#include "pushed_aggregate.hpp"
#include "duckdb/common/serializer/deserializer.hpp"
#include "duckdb/common/serializer/serializer.hpp"

namespace vortex {

void SerializeFiles(duckdb::Serializer &s, duckdb::field_id_t id, const std::vector<ScanFile> &files);
//! Reads each file's footer again; throws when a file is not the version that was serialized.
std::vector<ScanFile> DeserializeFiles(duckdb::Deserializer &d, duckdb::field_id_t id);

//! The schema: names, the format's column types and DuckDB's types (ids id and id + 1).
void SerializeFields(duckdb::Serializer &s, duckdb::field_id_t id, const std::vector<vtx::Field> &fields,
                     const duckdb::vector<duckdb::LogicalType> &types);
void DeserializeFields(duckdb::Deserializer &d, duckdb::field_id_t id, std::vector<vtx::Field> &fields,
                       duckdb::vector<duckdb::LogicalType> &types);

void SerializeAggregates(duckdb::Serializer &s, duckdb::field_id_t id, const std::vector<PushedAggregate> &aggregates);
std::vector<PushedAggregate> DeserializeAggregates(duckdb::Deserializer &d, duckdb::field_id_t id);

void SerializeFilters(duckdb::Serializer &s, duckdb::field_id_t id, const std::vector<PushedFilter> &filters);
std::vector<PushedFilter> DeserializeFilters(duckdb::Deserializer &d, duckdb::field_id_t id);

void SerializeLeaves(duckdb::Serializer &s, duckdb::field_id_t id, const std::vector<StructLeaf> &leaves);
std::vector<StructLeaf> DeserializeLeaves(duckdb::Deserializer &d, duckdb::field_id_t id);

void SerializeHive(duckdb::Serializer &s, duckdb::field_id_t id, const HivePartitions &hive);
HivePartitions DeserializeHive(duckdb::Deserializer &d, duckdb::field_id_t id);

//! Partition keys and the file-name flag (ids id .. id + 4).
void SerializeFileColumns(duckdb::Serializer &s, duckdb::field_id_t id, const FileColumns &columns);
FileColumns DeserializeFileColumns(duckdb::Deserializer &d, duckdb::field_id_t id);

//! The bind of a function only the optimizer plants: called from SQL, it explains itself.
duckdb::unique_ptr<duckdb::FunctionData> RefusePlantedBind(duckdb::ClientContext &context,
                                                           duckdb::TableFunctionBindInput &input,
                                                           duckdb::vector<duckdb::LogicalType> &types,
                                                           duckdb::vector<duckdb::string> &names);

} // namespace vortex
