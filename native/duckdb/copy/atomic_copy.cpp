#include "atomic_copy.hpp"
#include "vortex_copy.hpp"

#include "duckdb/main/config.hpp"
#include "duckdb/planner/operator/logical_copy_to_file.hpp"

namespace vortex {

using namespace duckdb;

namespace {

//! The temporary file DuckDB would write for this target ("<dir>/tmp_<name>").
std::string DuckDBTemporaryPath(FileSystem &fs, const std::string &target) {
	auto sep = target.find_last_of(fs.PathSeparator(target));
	if (sep == std::string::npos) {
		return "tmp_" + target;
	}
	return target.substr(0, sep + 1) + "tmp_" + target.substr(sep + 1);
}

void Visit(ClientContext &context, LogicalOperator &op) {
	if (op.type == LogicalOperatorType::LOGICAL_COPY_TO_FILE) {
		auto &copy = op.Cast<LogicalCopyToFile>();
		if (IsVortexOneFileCopy(copy) && copy.use_tmp_file) {
			auto &fs = FileSystem::GetFileSystem(context);
			auto &config = DBConfig::GetConfig(context);
			if (config.CanAccessFile(DuckDBTemporaryPath(fs, copy.file_path), FileType::FILE_TYPE_REGULAR)) {
				copy.use_tmp_file = false;
			}
		}
	}
	for (auto &child : op.children) {
		Visit(context, *child);
	}
}

void Optimize(OptimizerExtensionInput &input, unique_ptr<LogicalOperator> &plan) {
	Visit(input.context, *plan);
}

} // namespace

OptimizerExtension GetAtomicCopyOptimizer() {
	OptimizerExtension ext;
	ext.optimize_function = Optimize;
	return ext;
}

} // namespace vortex
