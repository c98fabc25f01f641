#include "extension.hpp"

#include "atomic_copy.hpp"
#include "memory_info_function.hpp"
#include "pushdown_optimizer.hpp"
#include "settings.hpp"
#include "vortex_copy.hpp"
#include "vortex_kernel_function.hpp"
#include "vortex_metadata_function.hpp"
#include "vortex_scan.hpp"
#include "duckdb/function/copy_function.hpp"
#include "duckdb/main/extension/extension_loader.hpp"
#include "duckdb/main/extension_manager.hpp"
#include "duckdb/parser/expression/constant_expression.hpp"
#include "duckdb/parser/expression/function_expression.hpp"
#include "duckdb/parser/tableref/table_function_ref.hpp"

#ifndef VORTEX_DUCKDB_VERSION
#error "VORTEX_DUCKDB_VERSION must name the DuckDB version of the headers (set by the build)"
#endif

namespace vortex {

using namespace duckdb;

namespace {

constexpr const char *kExtensionVersion = "0.1.0";

unique_ptr<TableRef> ReplacementScan(ClientContext &context, ReplacementScanInput &input,
                                     optional_ptr<ReplacementScanData>) {
	auto name = ReplacementScan::GetFullPath(input);
	if (!ReplacementScan::CanReplace(name, {"vtx"})) {
		return nullptr;
	}
	auto ref = make_uniq<TableFunctionRef>();
	vector<unique_ptr<ParsedExpression>> children;
	children.push_back(make_uniq<ConstantExpression>(Value(name)));
	ref->function = make_uniq<FunctionExpression>("vortex_scan", std::move(children));
	if (!FileSystem::HasGlob(name)) {
		ref->alias = FileSystem::GetFileSystem(context).ExtractBaseName(name);
	}
	return std::move(ref);
}

} // namespace

const char *CompiledDuckDBVersion() {
	return VORTEX_DUCKDB_VERSION;
}

bool RegisterVortex(DatabaseInstance &db, shared_ptr<RulesTable> rules) {
	auto &manager = ExtensionManager::Get(db);
	auto active = manager.BeginLoad("vortex");
	if (!active) {
		return false;
	}
	try {
		ExtensionLoader loader(*active);
		loader.RegisterFunction(GetVortexScanFunctions());
		loader.RegisterFunction(GetVortexKernelFunction());
		loader.RegisterFunction(GetVortexMetadataFunction());
		loader.RegisterFunction(GetVortexCopyFunction());
		loader.RegisterFunction(GetVortexCacheInfoFunction());
		loader.RegisterFunction(GetVortexBufferInfoFunction());
		auto &config = DBConfig::GetConfig(db);
		RegisterSettings(config);
		config.replacement_scans.emplace_back(ReplacementScan);
		config.optimizer_extensions.push_back(GetPushdownOptimizer(std::move(rules)));
		config.optimizer_extensions.push_back(GetAtomicCopyOptimizer());
		ExtensionInstallInfo info;
		info.mode = ExtensionInstallMode::STATICALLY_LINKED;
		info.version = kExtensionVersion;
		active->FinishLoad(info);
	} catch (std::exception &e) {
		active->LoadFail(ErrorData(e));
		throw;
	}
	return true;
}

} // namespace vortex
