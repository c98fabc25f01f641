#include "vortex_copy.hpp"

#include "../format/writer.hpp"
#include "file_io.hpp"
#include "type_mapping.hpp"
#include "zone_accumulator.hpp"
#include "duckdb/common/types/column/column_data_collection.hpp"
#include "duckdb/function/copy_function.hpp"

#include <mutex>
#include <random>

namespace vortex {

using namespace duckdb;

namespace {

constexpr const char *kCreatedBy = "duckdb-vortex";

struct CopyBindData : public TableFunctionData {
	std::vector<vtx::Field> fields;
	vtx::WriterOptions options;
};

unique_ptr<FunctionData> CopyBind(ClientContext &, CopyFunctionBindInput &input, const vector<string> &names,
                                  const vector<LogicalType> &types) {
	auto bind = make_uniq<CopyBindData>();
	for (idx_t i = 0; i < names.size(); i++) {
		vtx::Field f;
		f.name = names[i];
		if (!ToColumnType(types[i], f.type)) {
			throw BinderException("vortex: column \"%s\" has type %s, which .vtx files cannot store", names[i],
			                      types[i].ToString());
		}
		bind->fields.push_back(f);
	}
	for (auto &opt : input.info.options) {
		auto key = StringUtil::Lower(opt.first);
		if (opt.second.size() != 1) {
			throw BinderException("vortex: option %s takes exactly one value", opt.first);
		}
		auto &v = opt.second[0];
		if (key == "row_group_size" || key == "zone_rows") {
			auto n = v.DefaultCastAs(LogicalType::BIGINT).GetValue<int64_t>();
			if (n < 1 || n > (int64_t(1) << 30)) {
				throw BinderException("vortex: %s must be between 1 and 2^30, got %lld", opt.first, n);
			}
			bind->options.zone_rows = static_cast<uint64_t>(n);
		} else if (key == "compression" || key == "codec") {
			auto name = StringUtil::Lower(v.ToString());
			if (!vtx::ParseCodec(name, bind->options.codec)) {
				throw BinderException("vortex: unknown compression \"%s\" (expected zstd, lz4 or none)", v.ToString());
			}
		} else if (key == "compression_level") {
			auto n = v.DefaultCastAs(LogicalType::BIGINT).GetValue<int64_t>();
			if (n < 1 || n > 22) {
				throw BinderException("vortex: compression_level must be between 1 and 22, got %lld", n);
			}
			bind->options.level = static_cast<int>(n);
		} else {
			throw BinderException("vortex: unknown COPY option \"%s\" (supported: row_group_size, compression, "
			                      "compression_level)",
			                      opt.first);
		}
	}
	return std::move(bind);
}

void CopyOptions(ClientContext &, CopyOptionsInput &input) {
	input.options["row_group_size"] = CopyOption(LogicalType::BIGINT, CopyOptionMode::WRITE_ONLY);
	input.options["zone_rows"] = CopyOption(LogicalType::BIGINT, CopyOptionMode::WRITE_ONLY);
	input.options["compression"] = CopyOption(LogicalType::VARCHAR, CopyOptionMode::WRITE_ONLY);
	input.options["codec"] = CopyOption(LogicalType::VARCHAR, CopyOptionMode::WRITE_ONLY);
	input.options["compression_level"] = CopyOption(LogicalType::BIGINT, CopyOptionMode::WRITE_ONLY);
}

std::string TemporaryPath(ClientContext &context, const std::string &target) {
	std::random_device rd;
	char suffix[32];
	snprintf(suffix, sizeof(suffix), ".tmp-%08x", rd());
	auto temp = target + suffix;
	// Where DuckDB's access settings (allowed_paths) admit the target but not a file next to
	// it, write in place as DuckDB's own writers do: the COPY is then allowed or refused exactly
	// as for Parquet, with DuckDB's error naming the target.
	if (!DBConfig::GetConfig(context).CanAccessFile(temp, FileType::FILE_TYPE_REGULAR)) {
		return target;
	}
	return temp;
}

// Writes go to "<target>.tmp-XXXXXXXX" and are renamed over the target only once the
// footer is on disk, so readers never see a partial file and a failed COPY leaves the
// old file (or none) in place.
struct CopyGlobalState : public GlobalFunctionData {
	CopyGlobalState(ClientContext &context, const CopyBindData &bind, const std::string &target)
	    : fs(FileSystem::GetFileSystem(context)), target(target), temp(TemporaryPath(context, target)) {
		handle = fs.OpenFile(temp, FileFlags::FILE_FLAGS_WRITE | FileFlags::FILE_FLAGS_FILE_CREATE_NEW);
		sink = make_uniq<FileSink>(*handle);
		writer = make_uniq<vtx::FileWriter>(bind.fields, *sink, kCreatedBy);
	}
	~CopyGlobalState() override {
		if (!finished) {
			try {
				handle.reset();
				fs.TryRemoveFile(temp);
			} catch (...) {
			}
		}
	}
	void Append(std::vector<vtx::EncodedZone> &zones) {
		std::lock_guard<std::mutex> guard(lock);
		for (auto &z : zones) {
			writer->AppendZone(std::move(z));
		}
		zones.clear();
	}

	FileSystem &fs;
	std::string target;
	std::string temp;
	std::mutex lock;
	unique_ptr<FileHandle> handle;
	unique_ptr<FileSink> sink;
	unique_ptr<vtx::FileWriter> writer;
	bool finished = false;
};

struct CopyLocalState : public LocalFunctionData {
	explicit CopyLocalState(const CopyBindData &bind) : zones(Types(bind), bind.options) {
	}
	static std::vector<vtx::ColumnType> Types(const CopyBindData &bind) {
		std::vector<vtx::ColumnType> t;
		for (auto &f : bind.fields) {
			t.push_back(f.type);
		}
		return t;
	}
	ZoneAccumulator zones;
	std::vector<vtx::EncodedZone> encoded;
};

unique_ptr<GlobalFunctionData> CopyInitGlobal(ClientContext &context, FunctionData &bind, const string &path) {
	return make_uniq<CopyGlobalState>(context, bind.Cast<CopyBindData>(), path);
}

unique_ptr<LocalFunctionData> CopyInitLocal(ExecutionContext &, FunctionData &bind) {
	return make_uniq<CopyLocalState>(bind.Cast<CopyBindData>());
}

void CopySink(ExecutionContext &, FunctionData &, GlobalFunctionData &gstate, LocalFunctionData &lstate,
              DataChunk &input) {
	auto &l = lstate.Cast<CopyLocalState>();
	l.zones.Append(input, l.encoded);
	if (!l.encoded.empty()) {
		gstate.Cast<CopyGlobalState>().Append(l.encoded);
	}
}

void CopyCombine(ExecutionContext &, FunctionData &, GlobalFunctionData &gstate, LocalFunctionData &lstate) {
	auto &l = lstate.Cast<CopyLocalState>();
	l.zones.Flush(l.encoded);
	gstate.Cast<CopyGlobalState>().Append(l.encoded);
}

void CopyFinalize(ClientContext &, FunctionData &, GlobalFunctionData &gstate) {
	auto &g = gstate.Cast<CopyGlobalState>();
	g.writer->Finish();
	g.handle->Sync();
	g.handle->Close();
	g.handle.reset();
	if (g.temp != g.target) {
		g.fs.MoveFile(g.temp, g.target);
	}
	g.finished = true;
}

struct PreparedZones : public PreparedBatchData {
	std::vector<vtx::EncodedZone> zones;
};

unique_ptr<PreparedBatchData> CopyPrepareBatch(ClientContext &, FunctionData &bind_p, GlobalFunctionData &,
                                               unique_ptr<ColumnDataCollection> collection) {
	auto &bind = bind_p.Cast<CopyBindData>();
	auto result = make_uniq<PreparedZones>();
	// DuckDB's batches are only about ROW_GROUP_SIZE rows (whole vectors); split each into
	// zones of even size near the target instead of leaving a small remainder zone per batch.
	auto options = bind.options;
	const uint64_t rows = collection->Count();
	const uint64_t zones = std::max<uint64_t>(1, (rows + options.zone_rows / 2) / options.zone_rows);
	options.zone_rows = std::max<uint64_t>(1, (rows + zones - 1) / zones);
	ZoneAccumulator acc(CopyLocalState::Types(bind), options);
	for (auto &chunk : collection->Chunks()) {
		acc.Append(chunk, result->zones);
	}
	acc.Flush(result->zones);
	return std::move(result);
}

void CopyFlushBatch(ClientContext &, FunctionData &, GlobalFunctionData &gstate, PreparedBatchData &batch) {
	gstate.Cast<CopyGlobalState>().Append(batch.Cast<PreparedZones>().zones);
}

idx_t CopyDesiredBatchSize(ClientContext &, FunctionData &bind) {
	return bind.Cast<CopyBindData>().options.zone_rows;
}

CopyFunctionExecutionMode CopyExecutionMode(bool preserve_insertion_order, bool supports_batch_index) {
	if (!preserve_insertion_order) {
		return CopyFunctionExecutionMode::PARALLEL_COPY_TO_FILE;
	}
	if (supports_batch_index) {
		return CopyFunctionExecutionMode::BATCH_COPY_TO_FILE;
	}
	return CopyFunctionExecutionMode::REGULAR_COPY_TO_FILE;
}

} // namespace

bool IsVortexCopyFunction(const std::string &name) {
	return name == "vortex" || name == "vtx";
}

CopyFunction GetVortexCopyFunction(const std::string &name) {
	CopyFunction f(name);
	f.extension = "vtx";
	f.copy_to_bind = CopyBind;
	f.copy_options = CopyOptions;
	f.copy_to_initialize_global = CopyInitGlobal;
	f.copy_to_initialize_local = CopyInitLocal;
	f.copy_to_sink = CopySink;
	f.copy_to_combine = CopyCombine;
	f.copy_to_finalize = CopyFinalize;
	f.execution_mode = CopyExecutionMode;
	f.prepare_batch = CopyPrepareBatch;
	f.flush_batch = CopyFlushBatch;
	f.desired_batch_size = CopyDesiredBatchSize;
	return f;
}

} // namespace vortex
