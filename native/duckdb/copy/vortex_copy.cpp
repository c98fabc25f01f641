#include "vortex_copy.hpp"

#include "../../format/scratch.hpp"
#include "../../format/file/writer.hpp"
#include "../file_io.hpp"
#include "../type_mapping.hpp"
#include "../sketches.hpp"
#include "ordered_zone_encoder.hpp"
#include "test_faults.hpp"
#include "written_statistics.hpp"
#include "zone_accumulator.hpp"
#include "duckdb/common/type_visitor.hpp"
#include "duckdb/common/types/column/column_data_collection.hpp"
#include "duckdb/function/copy_function.hpp"
#include "duckdb/planner/operator/logical_copy_to_file.hpp"
#include "duckdb/planner/expression/bound_cast_expression.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>

#ifndef _WIN32
#include <fcntl.h>
#include <unistd.h>
#endif

namespace vortex {

using namespace duckdb;

namespace {

constexpr const char *kCreatedBy = "duckdb-vortex";

struct CopyBindData : public TableFunctionData {
	std::vector<vtx::Field> fields;
	vtx::WriterOptions options;
	//! Per column: a fingerprint of DuckDB's hash of its type, where its zones keep sketches
	//! (sketches.hpp), else 0.
	std::vector<uint64_t> fingerprints;
	//! ROW_GROUPS_PER_FILE: start a new file once the current one has this many zones.
	optional_idx zones_per_file;
	//! KV_METADATA, as Parquet's writer takes it: for the footer of every file written.
	std::vector<std::pair<std::string, std::string>> key_value;
	//! Zones encoded on DuckDB's threads as the sink fills them (PlanEncodingOnTasks).
	bool encode_on_tasks = false;
};

//! BIGNUM: the type with no storage of its own in .vtx nor in Parquet, which DuckDB's Parquet
//! writer writes as VARCHAR. The other type .vtx cannot store (VARIANT) has one in Parquet on
//! DuckDB 1.5, so CopyBind refuses it by name rather than changing its type. (TIME_NS and BIT,
//! which Parquet's writer turns into VARCHAR too, .vtx stores as themselves.)
bool WrittenAsVarchar(const LogicalType &type) {
	return type.id() == LogicalTypeId::BIGNUM;
}

//! Columns holding BIGNUM, alone or inside a nested type, are written with VARCHAR in their
//! place, as DuckDB's Parquet writer does (its ParquetWriteSelect). Nothing is returned, and
//! DuckDB keeps its plan, when no column needs it.
vector<unique_ptr<Expression>> CopySelect(CopyToSelectInput &input) {
	vector<unique_ptr<Expression>> out;
	bool changed = false;
	for (auto &expr : input.select_list) {
		if (!TypeVisitor::Contains(expr->return_type, WrittenAsVarchar)) {
			out.push_back(std::move(expr));
			continue;
		}
		const auto name = expr->GetAlias();
		auto type = TypeVisitor::VisitReplace(expr->return_type, [](const LogicalType &t) {
			return WrittenAsVarchar(t) ? LogicalType::VARCHAR : t;
		});
		auto cast = BoundCastExpression::AddCastToType(input.context, std::move(expr), type, false);
		cast->SetAlias(name);
		out.push_back(std::move(cast));
		changed = true;
	}
	if (!changed) {
		out.clear();
	}
	return out;
}

unique_ptr<FunctionData> CopyBind(ClientContext &context, CopyFunctionBindInput &input, const vector<string> &names,
                                  const vector<LogicalType> &types) {
	auto bind = make_uniq<CopyBindData>();
	bool sketches = true;
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
		if (key == "sketches" && opt.second.empty()) { // (SKETCHES) alone, as (HEADER) in CSV
			continue;
		}
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
		} else if (key == "row_groups_per_file") {
			auto n = v.DefaultCastAs(LogicalType::BIGINT).GetValue<int64_t>();
			if (n < 1) {
				throw BinderException("vortex: %s must be at least 1, got %lld", opt.first, n);
			}
			bind->zones_per_file = static_cast<idx_t>(n);
		} else if (key == "kv_metadata") {
			// Parquet's rules: a STRUCT whose field names are the keys; a BLOB value is stored as its
			// bytes, any other as its text.
			if (v.type().id() != LogicalTypeId::STRUCT) {
				throw BinderException("vortex: KV_METADATA must be a STRUCT, e.g. {'key': 'value'}; got %s",
				                      v.type().ToString());
			}
			auto &children = StructValue::GetChildren(v);
			for (idx_t i = 0; i < children.size(); i++) {
				auto &name = StructType::GetChildName(v.type(), i);
				auto &value = children[i];
				bind->key_value.emplace_back(name, value.type().id() == LogicalTypeId::BLOB && !value.IsNull()
				                                       ? StringValue::Get(value)
				                                       : value.ToString());
			}
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
		} else if (key == "sketches") {
			Value b;
			string error;
			if (!v.TryCastAs(context, LogicalType::BOOLEAN, b, &error) || b.IsNull()) {
				throw BinderException("vortex: sketches must be true or false, got %s", v.ToString());
			}
			sketches = b.GetValue<bool>();
			bind->options.distinct_values = sketches; // the zones' distinct values go with the sketches
		} else {
			throw BinderException("vortex: unknown COPY option \"%s\" (supported: row_group_size, "
			                      "row_groups_per_file, compression, compression_level, sketches, kv_metadata)",
			                      opt.first);
		}
	}
	for (idx_t i = 0; i < names.size(); i++) {
		bind->fingerprints.push_back(sketches && SketchedType(types[i]) ? HashFingerprint(context, types[i]) : 0);
	}
	if (std::all_of(bind->fingerprints.begin(), bind->fingerprints.end(), [](uint64_t f) { return f == 0; })) {
		bind->fingerprints.clear(); // no sketches: the footer says so with no fingerprints at all
	}
	return std::move(bind);
}

void CopyOptions(ClientContext &, CopyOptionsInput &input) {
	input.options["row_group_size"] = CopyOption(LogicalType::BIGINT, CopyOptionMode::WRITE_ONLY);
	input.options["zone_rows"] = CopyOption(LogicalType::BIGINT, CopyOptionMode::WRITE_ONLY);
	input.options["row_groups_per_file"] = CopyOption(LogicalType::BIGINT, CopyOptionMode::WRITE_ONLY);
	input.options["kv_metadata"] = CopyOption(LogicalType::ANY, CopyOptionMode::WRITE_ONLY);
	input.options["compression"] = CopyOption(LogicalType::VARCHAR, CopyOptionMode::WRITE_ONLY);
	input.options["codec"] = CopyOption(LogicalType::VARCHAR, CopyOptionMode::WRITE_ONLY);
	input.options["compression_level"] = CopyOption(LogicalType::BIGINT, CopyOptionMode::WRITE_ONLY);
	input.options["sketches"] = CopyOption(LogicalType::BOOLEAN, CopyOptionMode::WRITE_ONLY);
}

// Test hook (environment): VORTEX_TEST_TEMP_SUFFIX fixes the temporary name's suffix (and
// test_faults.hpp's VORTEX_TEST_FAULT injects failures).
//! "<target>.tmp-" and 64 random bits in hex.
std::string TemporaryName(const std::string &target, bool random_always = false) {
	auto fixed = std::getenv("VORTEX_TEST_TEMP_SUFFIX");
	if (fixed && !random_always) {
		return target + ".tmp-" + fixed;
	}
	std::random_device rd;
	const uint64_t bits = (uint64_t(rd()) << 32) ^ uint64_t(rd());
	char suffix[32];
	snprintf(suffix, sizeof(suffix), ".tmp-%016llx", static_cast<unsigned long long>(bits));
	return target + suffix;
}

//! Whether DuckDB's access settings admit a file next to the target. Where they admit the
//! target but not such a file (allowed_paths listing the target), the COPY writes in place as
//! DuckDB's own writers do: it is then allowed or refused exactly as for Parquet, with
//! DuckDB's error naming the target, but it is not atomic (see README, "COPY").
bool CanWriteNextTo(ClientContext &context, const std::string &target) {
	return DBConfig::GetConfig(context).CanAccessFile(target + ".tmp-0000000000000000", FileType::FILE_TYPE_REGULAR);
}

//! The local path of `path`, or false for remote file systems (s3://, http://, ...).
bool LocalPath(const std::string &path, std::string &local) {
	local = path;
	if (StringUtil::StartsWith(local, "file://")) {
		local = local.substr(7);
	}
	return !FileSystem::IsRemoteFile(local) && local.find("://") == std::string::npos;
}

//! DuckDB 1.5 removes a COPY's target itself when the COPY fails once under way (its
//! PhysicalCopyToFile deletes the file it takes to be its own), and for a writer that renames
//! its file over the target that is the old file. A hard link to the old file, made as the COPY
//! begins, puts it back then, only if the target is gone (a COPY that completed meanwhile stays),
//! and is removed either way. Local POSIX files only.
struct KeptTarget {
	~KeptTarget() {
#ifndef _WIN32
		if (!link_path.empty()) {
			if (!done) {
				(void)::link(link_path.c_str(), target.c_str()); // EEXIST: the target is still there
			}
			(void)::unlink(link_path.c_str());
		}
#endif
	}
	void Keep(const std::string &target_p) {
#ifndef _WIN32
		if (!LocalPath(target_p, target)) {
			return;
		}
		for (int attempt = 0; attempt < 8; attempt++) {
			auto name = TemporaryName(target, true);
			if (::link(target.c_str(), name.c_str()) == 0) {
				link_path = name;
				return;
			}
			if (errno != EEXIST) {
				return; // no target yet, or a file system without hard links: nothing to keep
			}
		}
#else
		(void)target_p;
#endif
	}
	std::string target;
	std::string link_path;
	bool done = false;
};

//! Makes the directory entry of a file just created or renamed durable. DuckDB's FileSystem
//! has no call for it, so for local paths the directory is opened with open(2) and fsync'd
//! (POSIX only). Remote file systems (s3://, http://, ...) have no such notion: skipped, as
//! is a directory that cannot be opened for reading or a file system that cannot sync one.
void SyncDirectoryOf(FileSystem &fs, const std::string &path) {
#ifndef _WIN32
	std::string local;
	if (!LocalPath(path, local)) {
		return;
	}
	auto sep = local.find_last_of('/');
	std::string dir = sep == std::string::npos ? "." : (sep == 0 ? "/" : local.substr(0, sep));
	int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		return;
	}
	int rc = ::fsync(fd);
	int err = errno;
	::close(fd);
	if (rc != 0 && err != EINVAL && err != ENOTSUP && err != EROFS) {
		throw IOException("vortex: could not sync directory \"%s\" after writing \"%s\": %s", dir, path,
		                  strerror(err));
	}
#else
	(void)fs;
	(void)path;
#endif
}

//! The file being written; removed when the COPY does not complete, whatever fails.
struct PendingFile {
	PendingFile(FileSystem &fs, std::string path) : fs(fs), path(std::move(path)) {
	}
	~PendingFile() {
		if (created && !done) {
			try {
				fs.TryRemoveFile(path);
			} catch (...) {
			}
		}
	}
	FileSystem &fs;
	std::string path;
	bool created = false;
	bool done = false;
};

// Writes go to "<target>.tmp-<16 hex digits>", created exclusively (never an existing file or
// symlink), and are renamed over the target only once the footer is on disk, so readers never
// see a partial file and a failed COPY leaves the old file (or none) in place.
struct CopyGlobalState : public GlobalFunctionData {
	CopyGlobalState(ClientContext &context, const CopyBindData &bind, const std::string &target_p)
	    : fs(FileSystem::GetFileSystem(context)), target(target_p), file(fs, target_p) {
		if (CanWriteNextTo(context, target)) {
			// A name taken already (a leftover, or someone else's file or symlink) is skipped.
			for (int attempt = 0; attempt < 8 && !handle; attempt++) {
				file.path = TemporaryName(target);
				handle = fs.OpenFile(file.path, FileFlags::FILE_FLAGS_WRITE | FileFlags::FILE_FLAGS_FILE_CREATE |
				                                     FileFlags::FILE_FLAGS_EXCLUSIVE_CREATE |
				                                     FileFlags::FILE_FLAGS_NULL_IF_EXISTS);
			}
			if (!handle) {
				throw IOException("vortex: cannot create a temporary file next to \"%s\": \"%s\" exists", target,
				                  file.path);
			}
			kept.Keep(target);
		} else {
			handle = fs.OpenFile(target, FileFlags::FILE_FLAGS_WRITE | FileFlags::FILE_FLAGS_FILE_CREATE_NEW);
		}
		file.created = true;
		if (FaultInjected("copy_after_create")) {
			throw IOException("vortex: injected failure after creating \"%s\"", file.path);
		}
		sink = make_uniq<FileSink>(*handle);
		writer = make_uniq<vtx::FileWriter>(bind.fields, *sink, kCreatedBy);
		writer->SetHashFingerprints(bind.fingerprints);
		writer->SetKeyValueMetadata(bind.key_value);
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
	vtx::ScratchActivity activity;
	KeptTarget kept; //! declared before the file: put back after DuckDB and PendingFile cleaned up
	PendingFile file; //! declared before the handle: closed first, then removed
	std::mutex lock;
	unique_ptr<FileHandle> handle;
	unique_ptr<FileSink> sink;
	unique_ptr<vtx::FileWriter> writer;
	//! Where DuckDB wants the file's statistics (RETURN_STATS), else null.
	optional_ptr<CopyFunctionFileStatistics> written_stats;
};

struct CopyLocalState : public LocalFunctionData {
	explicit CopyLocalState(const CopyBindData &bind) : bind(bind) {
	}
	static std::vector<bool> Sketched(const CopyBindData &bind) {
		std::vector<bool> out;
		for (auto f : bind.fingerprints) {
			out.push_back(f != 0);
		}
		return out;
	}
	static std::vector<vtx::ColumnType> Types(const CopyBindData &bind) {
		std::vector<vtx::ColumnType> t;
		for (auto &f : bind.fields) {
			t.push_back(f.type);
		}
		return t;
	}
	//! The zone being filled: a reused one where the encoding tasks hand one back.
	ZoneAccumulator &Filling() {
		if (!filling && encoder) {
			filling = encoder->Reuse();
		}
		if (!filling) {
			filling = std::make_unique<ZoneAccumulator>(Types(bind), bind.options, Sketched(bind));
		}
		return *filling;
	}
	//! The zone being filled is done: encoded here, or handed to the encoding tasks.
	void HandOver() {
		if (encoder) {
			encoder->Submit(std::move(filling));
		} else {
			filling->Flush(encoded);
		}
	}

	const CopyBindData &bind;
	std::unique_ptr<ZoneAccumulator> filling;
	//! With encode_on_tasks (PlanEncodingOnTasks): the tasks encoding full zones, in order.
	std::unique_ptr<OrderedZoneEncoder> encoder;
	std::vector<vtx::EncodedZone> encoded;
};

unique_ptr<GlobalFunctionData> CopyInitGlobal(ClientContext &context, FunctionData &bind, const string &path) {
	return make_uniq<CopyGlobalState>(context, bind.Cast<CopyBindData>(), path);
}

unique_ptr<LocalFunctionData> CopyInitLocal(ExecutionContext &context, FunctionData &bind_p) {
	auto &bind = bind_p.Cast<CopyBindData>();
	auto local = make_uniq<CopyLocalState>(bind);
	if (bind.encode_on_tasks) {
		local->encoder = std::make_unique<OrderedZoneEncoder>(context.client);
	}
	return std::move(local);
}

void CopySink(ExecutionContext &, FunctionData &, GlobalFunctionData &gstate, LocalFunctionData &lstate,
              DataChunk &input) {
	auto &l = lstate.Cast<CopyLocalState>();
	for (idx_t done = 0; done < input.size();) {
		auto &zone = l.Filling();
		done += zone.AppendUntilFull(input, done);
		if (zone.Full()) {
			l.HandOver();
		}
	}
	if (l.encoder) {
		l.encoder->TakeEncoded(l.encoded, false);
	}
	if (!l.encoded.empty()) {
		gstate.Cast<CopyGlobalState>().Append(l.encoded);
	}
}

void CopyCombine(ExecutionContext &, FunctionData &, GlobalFunctionData &gstate, LocalFunctionData &lstate) {
	auto &l = lstate.Cast<CopyLocalState>();
	if (l.filling && !l.filling->Empty()) {
		l.HandOver();
	}
	if (l.encoder) {
		l.encoder->TakeEncoded(l.encoded, true);
	}
	gstate.Cast<CopyGlobalState>().Append(l.encoded);
}

void CopyFinalize(ClientContext &, FunctionData &, GlobalFunctionData &gstate) {
	auto &g = gstate.Cast<CopyGlobalState>();
	const auto size = g.writer->Finish();
	if (g.written_stats) {
		FillWrittenStatistics(g.writer->Metadata(), size, *g.written_stats);
	}
	g.handle->Sync();
	g.handle->Close();
	g.handle.reset();
	if (g.file.path != g.target) {
		g.fs.MoveFile(g.file.path, g.target);
	}
	g.file.done = true;
	g.kept.done = true;
	SyncDirectoryOf(g.fs, g.target);
}

void CopyGetWrittenStatistics(ClientContext &, FunctionData &, GlobalFunctionData &gstate,
                              CopyFunctionFileStatistics &statistics) {
	gstate.Cast<CopyGlobalState>().written_stats = &statistics;
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
	ZoneAccumulator acc(CopyLocalState::Types(bind), options, CopyLocalState::Sketched(bind));
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

// FILE_SIZE_BYTES and ROW_GROUPS_PER_FILE, as Parquet has them: DuckDB starts the next file (a
// global state of its own, written and renamed atomically like any COPY) once the current one has
// passed the size or holds that many zones; the check falls between batches of zones, so files
// end a little past the size, and may hold a few more zones where threads flush at once.
bool CopyRotateFiles(FunctionData &bind, const optional_idx &file_size_bytes) {
	return file_size_bytes.IsValid() || bind.Cast<CopyBindData>().zones_per_file.IsValid();
}

bool CopyRotateNextFile(GlobalFunctionData &gstate, FunctionData &bind_p, const optional_idx &file_size_bytes) {
	auto &g = gstate.Cast<CopyGlobalState>();
	auto &bind = bind_p.Cast<CopyBindData>();
	std::lock_guard<std::mutex> guard(g.lock);
	if (file_size_bytes.IsValid() && g.writer->BytesWritten() > file_size_bytes.GetIndex()) {
		return true;
	}
	return bind.zones_per_file.IsValid() && g.writer->Metadata().zones.size() >= bind.zones_per_file.GetIndex();
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

//! One thread feeds the sink, in order, and no batch collections are made (OrderedZoneEncoder);
//! always, so that the one encoder is the COPY's only one.
CopyFunctionExecutionMode EncodeOnTasksExecutionMode(bool, bool) {
	return CopyFunctionExecutionMode::REGULAR_COPY_TO_FILE;
}

} // namespace

void PlanEncodingOnTasks(LogicalCopyToFile &copy) {
	copy.bind_data->Cast<CopyBindData>().encode_on_tasks = true;
	copy.function.execution_mode = EncodeOnTasksExecutionMode;
}

bool IsVortexCopyFunction(const std::string &name) {
	return name == "vortex" || name == "vtx";
}

bool IsVortexOneFileCopy(const LogicalCopyToFile &copy) {
	return IsVortexCopyFunction(copy.function.name) && !copy.per_thread_output && !copy.partition_output &&
	       copy.partition_columns.empty() && !copy.file_size_bytes.IsValid() && !copy.rotate;
}

CopyFunction GetVortexCopyFunction(const std::string &name) {
	CopyFunction f(name);
	f.extension = "vtx";
	f.copy_to_select = CopySelect;
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
	f.rotate_files = CopyRotateFiles;
	f.rotate_next_file = CopyRotateNextFile;
	f.copy_to_get_written_statistics = CopyGetWrittenStatistics;
	return f;
}

} // namespace vortex
