// The one place where the DuckDB releases the addon supports differ (scripts/duckdb-lines.json
// lists them: the 1.4 and 1.5 lines). Everything else in native/ is written against the API common
// to all of them. The build defines VORTEX_DUCKDB_VERSION (e.g. "v1.5.0") and
// VORTEX_DUCKDB_VERSION_NUMBER (10500) from the headers it compiles with (scripts/build-config.mjs).
#pragma once
#include "duckdb.hpp"
#include "duckdb/main/config.hpp"
// 1.5: no longer reached through duckdb.hpp / config.hpp.
#include "duckdb/optimizer/optimizer_extension.hpp"
#include "duckdb/optimizer/optimizer.hpp"
#include "duckdb/optimizer/remove_unused_columns.hpp"
#include "duckdb/planner/expression/bound_function_expression.hpp"
#include "duckdb/storage/object_cache.hpp"
#if VORTEX_DUCKDB_VERSION_NUMBER >= 10500
#include "duckdb/common/types/geometry_crs.hpp"
#endif

#if !defined(VORTEX_DUCKDB_VERSION) || !defined(VORTEX_DUCKDB_VERSION_NUMBER)
#error "VORTEX_DUCKDB_VERSION and VORTEX_DUCKDB_VERSION_NUMBER must name the DuckDB version of the headers (set by the build)"
#endif
#if VORTEX_DUCKDB_VERSION_NUMBER < 10400 || VORTEX_DUCKDB_VERSION_NUMBER >= 10600
#error "duckdb-vortex supports the DuckDB 1.4 and 1.5 lines"
#endif

namespace vortex {
namespace compat {

//! E.g. "v1.4.0": the DuckDB release the addon was compiled against.
constexpr const char *kDuckDBVersion = VORTEX_DUCKDB_VERSION;

//! Runs DuckDB's own pruning of unused columns over a plan (as its optimizer does last).
//! 1.4 and 1.5.0: constructed from the binder and context; from 1.5.1: from the optimizer.
inline void RemoveUnusedColumnsFrom(duckdb::Optimizer &optimizer, duckdb::LogicalOperator &plan) {
#if VORTEX_DUCKDB_VERSION_NUMBER >= 10501
	duckdb::RemoveUnusedColumns remove(optimizer);
#else
	duckdb::RemoveUnusedColumns remove(optimizer.binder, optimizer.context, true);
#endif
	remove.VisitOperator(plan);
}

//! The base of a FileSystem for URLs of a scheme of its own (io/sim_store.cpp). 1.5 made
//! CanonicalizePath and IsPathAbsolute virtual (their defaults would take "scheme:///a/b" apart as a
//! local path) and added Stats (not implemented by default); 1.4 has none of them.
class UrlFileSystem : public duckdb::FileSystem {
#if VORTEX_DUCKDB_VERSION_NUMBER >= 10500
public:
	std::string CanonicalizePath(const std::string &path, duckdb::optional_ptr<duckdb::FileOpener>) override {
		return path;
	}
	bool IsPathAbsolute(const std::string &path) override {
		return CanHandleFile(path) || duckdb::FileSystem::IsPathAbsolute(path);
	}
	duckdb::FileMetadata Stats(duckdb::FileHandle &handle) override {
		duckdb::FileMetadata m;
		m.file_size = GetFileSize(handle);
		m.last_modification_time = GetLastModifiedTime(handle);
		m.file_type = GetFileType(handle);
		m.extended_file_info.emplace("etag", duckdb::Value(GetVersionTag(handle)));
		return m;
	}
#endif
};

//! Adds an optimizer extension to a database's configuration.
//! 1.4: DBConfig::optimizer_extensions (a vector); 1.5: OptimizerExtension::Register.
inline void RegisterOptimizerExtension(duckdb::DBConfig &config, duckdb::OptimizerExtension extension) {
#if VORTEX_DUCKDB_VERSION_NUMBER >= 10500
	duckdb::OptimizerExtension::Register(config, std::move(extension));
#else
	config.optimizer_extensions.push_back(std::move(extension));
#endif
}

//! Adds optimizer extensions to a database's configuration. 1.4 keeps them in a vector that
//! queries read without a lock, so they are handed to `publish(list, additions)`, which must
//! not disturb readers; 1.5 registers each through DuckDB's own (locked) callback manager.
template <class PUBLISH>
void RegisterOptimizerExtensions(duckdb::DBConfig &config, std::vector<duckdb::OptimizerExtension> extensions,
                                 PUBLISH publish) {
#if VORTEX_DUCKDB_VERSION_NUMBER >= 10500
	for (auto &e : extensions) {
		duckdb::OptimizerExtension::Register(config, std::move(e));
	}
#else
	publish(config.optimizer_extensions, std::move(extensions));
#endif
}

//! The list of optimizer extensions that queries read without a lock, where DuckDB keeps one
//! (1.4); null where DuckDB registers them through its own locked manager (1.5).
inline duckdb::vector<duckdb::OptimizerExtension> *UnlockedOptimizerExtensions(duckdb::DBConfig &config) {
#if VORTEX_DUCKDB_VERSION_NUMBER >= 10500
	(void)config;
	return nullptr;
#else
	return &config.optimizer_extensions;
#endif
}

//! Names a dictionary vector's dictionary, so that DuckDB can recognise it across chunks.
//! 1.4 has DictionaryVector::SetDictionaryId; 1.5 dropped it, and both keep the id on the
//! vector's DictionaryBuffer.
inline void SetDictionaryId(duckdb::Vector &vector, std::string id) {
	vector.GetBuffer()->Cast<duckdb::DictionaryBuffer>().SetDictionaryId(std::move(id));
}

//! The child of a STRUCT that a projection hint names, by its position. 1.5 may name a child by
//! its field (variants) or ask the scan to extract it (PUSHDOWN_EXTRACT, only for functions
//! that set supports_pushdown_extract, which vortex_scan does not): false for those.
inline bool StructChildPosition(const duckdb::ColumnIndex &child, duckdb::idx_t &position) {
#if VORTEX_DUCKDB_VERSION_NUMBER >= 10500
	if (!child.HasPrimaryIndex() || child.IsPushdownExtract()) {
		return false;
	}
#endif
	position = child.GetPrimaryIndex();
	return true;
}

//! GEOMETRY is a type of its own from 1.5 on (WKB values, a coordinate reference system in the
//! type); 1.4 has none, and reads a stored GEOMETRY as its WKB BLOB, as it reads GeoParquet.
inline bool IsGeometry(const duckdb::LogicalType &type) {
#if VORTEX_DUCKDB_VERSION_NUMBER >= 10500
	return type.id() == duckdb::LogicalTypeId::GEOMETRY;
#else
	(void)type;
	return false;
#endif
}

//! The definition of a GEOMETRY type's coordinate reference system ("" where it names none).
inline std::string GeometryCrs(const duckdb::LogicalType &type) {
#if VORTEX_DUCKDB_VERSION_NUMBER >= 10500
	return duckdb::GeoType::HasCRS(type) ? duckdb::GeoType::GetCRS(type).GetDefinition() : std::string();
#else
	(void)type;
	return std::string();
#endif
}

//! The type of a stored GEOMETRY column: GEOMETRY with its CRS (parsed from its definition, not
//! looked up, so that any definition a file carries is taken), or BLOB on 1.4.
inline duckdb::LogicalType GeometryType(const std::string &crs) {
#if VORTEX_DUCKDB_VERSION_NUMBER >= 10500
	return crs.empty() ? duckdb::LogicalType::GEOMETRY()
	                   : duckdb::LogicalType::GEOMETRY(duckdb::CoordinateReferenceSystem(crs));
#else
	(void)crs;
	return duckdb::LogicalType::BLOB;
#endif
}

//! A per-database entry of DuckDB's ObjectCache that DuckDB never evicts (it bounds itself, or is
//! small). DERIVED names itself with a static ObjectType(), which GetOrCreate<DERIVED> also needs.
//! 1.5's cache asks each entry for its size and may evict it (an invalid size means "never"); 1.4
//! has no such method, hence no `override`.
template <class DERIVED>
class UnevictedCacheEntry : public duckdb::ObjectCacheEntry {
public:
	std::string GetObjectType() override {
		return DERIVED::ObjectType();
	}
	duckdb::optional_idx GetEstimatedCacheMemory() const {
		return duckdb::optional_idx();
	}
};

//! Whether DuckDB must group by this key itself. Before 1.4.4 DuckDB propagates statistics through
//! date_trunc wrongly: its own GROUP BY then turns a NULL input into a garbage key, and a column whose
//! bounds are extreme raises "Date out of range" while planning. The reader's keys are right, and so
//! would differ from DuckDB's answer: such a key is left to DuckDB, whose answer is then its own.
inline bool GroupsKeyItself(const duckdb::Expression &key) {
#if VORTEX_DUCKDB_VERSION_NUMBER >= 10404
	(void)key;
	return false;
#else
	if (key.GetExpressionClass() != duckdb::ExpressionClass::BOUND_FUNCTION) {
		return false;
	}
	auto &name = key.Cast<duckdb::BoundFunctionExpression>().function.name;
	return name == "date_trunc" || name == "datetrunc";
#endif
}

} // namespace compat
} // namespace vortex
