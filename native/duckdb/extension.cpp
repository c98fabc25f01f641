#include "extension.hpp"

#include "copy/atomic_copy.hpp"
#include "copy/copy_execution.hpp"
#include "duckdb_compat.hpp"
#include "functions/exact_float_sum_function.hpp"
#include "functions/memory_info_function.hpp"
#include "pushdown/grouped_aggregate.hpp"
#include "pushdown/pushdown_optimizer.hpp"
#include "pushdown/pushed_aggregate.hpp"
#include "settings.hpp"
#include "copy/vortex_copy.hpp"
#include "functions/vortex_kernel_function.hpp"
#include "functions/vortex_kv_metadata_function.hpp"
#include "functions/vortex_metadata_function.hpp"
#include "scan/vortex_scan.hpp"
#include "duckdb/function/copy_function.hpp"
#include "duckdb/main/extension/extension_loader.hpp"
#include "duckdb/main/extension_manager.hpp"
#include "duckdb/parser/expression/constant_expression.hpp"
#include "duckdb/parser/expression/function_expression.hpp"
#include "duckdb/parser/tableref/table_function_ref.hpp"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>

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

//! Used where DuckDB keeps optimizer extensions in a vector (1.4; see duckdb_compat.hpp).
[[maybe_unused]] OptimizerExtension Copy(const OptimizerExtension &e) {
	return e;
}

duckdb::ReplacementScan Copy(duckdb::ReplacementScan &e) {
	// Entries without data (DuckDB's own) are copied, so the retired list stays intact for a
	// reader still walking it; an entry that owns data can only be moved.
	if (!e.data) {
		return duckdb::ReplacementScan(e.function);
	}
	return duckdb::ReplacementScan(e.function, std::move(e.data));
}

//! Appends to one of DBConfig's lists, which other connections read without a lock while they
//! bind and optimize. Appending in place could reallocate the list and free (or move from) the
//! elements under a reader; instead the complete new list is built aside and swapped in, and
//! the old one is kept alive with the database (in `keep`), so that a reader still walking it
//! reads valid elements.
template <class LIST, class ITEM>
void Publish(LIST &list, std::vector<ITEM> additions, RulesTable &keep) {
	auto fresh = std::make_shared<LIST>();
	fresh->reserve(list.size() + additions.size());
	for (auto &e : list) {
		fresh->push_back(Copy(e));
	}
	for (auto &e : additions) {
		fresh->push_back(std::move(e));
	}
	std::atomic_thread_fence(std::memory_order_release);
	list.swap(*fresh);
	keep.retired.push_back(std::move(fresh));
}

//! The rules each database was registered with. The optimizer extension owns them; the entry
//! only looks them up (a database at a reused address registers again and replaces it).
std::mutex registry_lock;
std::map<const DatabaseInstance *, weak_ptr<RulesTable>> registry;

void RememberRules(const DatabaseInstance &db, const shared_ptr<RulesTable> &rules) {
	std::lock_guard<std::mutex> guard(registry_lock);
	registry[&db] = weak_ptr<RulesTable>(rules);
}

//! The rules of a database where the extension is already registered.
shared_ptr<RulesTable> RegisteredRules(const DatabaseInstance &db) {
	std::lock_guard<std::mutex> guard(registry_lock);
	auto it = registry.find(&db);
	if (it == registry.end()) {
		return nullptr;
	}
	return it->second.lock();
}

} // namespace

const char *CompiledDuckDBVersion() {
	return compat::kDuckDBVersion;
}

Registration RegisterVortex(DatabaseInstance &db, shared_ptr<RulesTable> rules) {
	Registration result;
	auto &manager = ExtensionManager::Get(db);
	// BeginLoad serializes concurrent registrations of a database: one gets the load, the
	// others wait for it to finish and then see the extension loaded.
	auto active = manager.BeginLoad("vortex");
	if (!active) {
		result.rules = RegisteredRules(db);
		return result;
	}
	try {
		ExtensionLoader loader(*active);
		loader.RegisterFunction(GetVortexScanFunctions("vortex_scan"));
		loader.RegisterFunction(GetVortexScanFunctions("read_vortex"));
		loader.RegisterFunction(GetVortexKernelFunction());
		loader.RegisterFunction(GetVortexMetadataFunction());
		loader.RegisterFunction(GetVortexKeyValueMetadataFunctions());
		loader.RegisterFunction(GetVortexCopyFunction("vortex"));
		// COPY t TO 'f.vtx' with no FORMAT looks the copy function up by the file's extension.
		loader.RegisterFunction(GetVortexCopyFunction("vtx"));
		loader.RegisterFunction(GetVortexCacheInfoFunction());
		loader.RegisterFunction(GetVortexBufferInfoFunction());
		// Planted by the optimizer rule only; in the catalog so that serialized plans find them.
		loader.RegisterFunction(GetPushedAggregateFunction());
		loader.RegisterFunction(GetGroupedAggregateFunction());
		for (auto &f : GetExactFloatFunctions()) {
			loader.RegisterFunction(f);
		}
		auto &config = DBConfig::GetConfig(db);
		RegisterSettings(config);
		auto &keep = *rules;
		std::vector<duckdb::ReplacementScan> scans;
		scans.emplace_back(ReplacementScan);
		Publish(config.replacement_scans, std::move(scans), keep);
		std::vector<OptimizerExtension> optimizers;
		optimizers.push_back(GetPushdownOptimizer(rules));
		optimizers.push_back(GetAtomicCopyOptimizer());
		optimizers.push_back(GetCopyExecutionOptimizer());
		compat::RegisterOptimizerExtensions(config, std::move(optimizers), [&](auto &list, auto additions) {
			Publish(list, std::move(additions), keep);
		});
		RememberRules(db, rules);
		ExtensionInstallInfo info;
		info.mode = ExtensionInstallMode::STATICALLY_LINKED;
		info.version = kExtensionVersion;
		active->FinishLoad(info);
	} catch (std::exception &e) {
		active->LoadFail(ErrorData(e));
		throw;
	}
	result.registered = true;
	result.rules = std::move(rules);
	return result;
}

} // namespace vortex
