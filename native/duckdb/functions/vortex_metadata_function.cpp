#include "vortex_metadata_function.hpp"

#include "../../format/encodings/encoding.hpp"
#include "../../format/file/reader.hpp"
#include "../../format/utf8.hpp"
#include "../duckdb_compat.hpp"
#include "../file_io.hpp"
#include "../metadata_cache.hpp"
#include "../type_mapping.hpp"

namespace vortex {

using namespace duckdb;

namespace {

struct MetadataBindData : public TableFunctionData {
	std::string path;
	bool verify = true;
};

unique_ptr<FunctionData> MetadataBind(ClientContext &context, TableFunctionBindInput &input,
                                      vector<LogicalType> &return_types, vector<string> &names) {
	auto bind = make_uniq<MetadataBindData>();
	if (input.inputs[0].IsNull()) {
		throw BinderException("vortex_metadata: the path must not be NULL");
	}
	bind->path = input.inputs[0].ToString();
	for (auto &kv : input.named_parameters) {
		if (kv.first == "verify") {
			bind->verify = BooleanValue::Get(kv.second.DefaultCastAs(LogicalType::BOOLEAN));
		}
	}
	auto add = [&](const char *name, const LogicalType &type) {
		names.emplace_back(name);
		return_types.push_back(type);
	};
	add("zone", LogicalType::BIGINT);
	add("first_row", LogicalType::BIGINT);
	add("rows", LogicalType::BIGINT);
	add("column_index", LogicalType::INTEGER);
	add("column_name", LogicalType::VARCHAR);
	add("column_type", LogicalType::VARCHAR);
	add("encoding", LogicalType::VARCHAR);
	add("codec", LogicalType::VARCHAR);
	add("stored_bytes", LogicalType::UBIGINT);
	add("raw_bytes", LogicalType::UBIGINT);
	add("offset", LogicalType::UBIGINT);
	add("null_count", LogicalType::UBIGINT);
	add("nan_count", LogicalType::UBIGINT);
	add("min", LogicalType::VARCHAR);
	add("max", LogicalType::VARCHAR);
	add("min_max_exact", LogicalType::BOOLEAN);
	add("checksum", LogicalType::VARCHAR);
	// One row per stream: a nested column has a row for its own stream (validity, tags, lengths)
	// and one for each child's, pre-order; `stream` is the path ("s", "s.a", "l.element").
	add("stream", LogicalType::VARCHAR);
	add("stream_depth", LogicalType::INTEGER);
	add("stream_values", LogicalType::UBIGINT);
	add("format_version", LogicalType::INTEGER);
	return std::move(bind);
}

//! A stream of a column, the same in every zone: where it sits in the column's chunk tree.
struct StreamRef {
	size_t column;
	std::string path;
	int depth;
	LogicalType type;
	std::vector<size_t> route; //! child indexes from the column's chunk
};

void AddStreams(size_t column, const std::string &path, int depth, const vtx::ColumnType &type,
                std::vector<size_t> &route, std::vector<StreamRef> &out) {
	out.push_back(StreamRef {column, path, depth, ToLogicalType(type), route});
	auto &children = type.Children();
	for (size_t i = 0; i < children.size(); i++) {
		route.push_back(i);
		AddStreams(column, path + type.ChildPath(i), depth + 1, children[i].type, route, out);
		route.pop_back();
	}
}

struct MetadataState : public GlobalTableFunctionState {
	unique_ptr<FileSource> source;
	std::shared_ptr<const vtx::FileMetadata> meta;
	std::vector<StreamRef> streams;
	size_t zone = 0;
	size_t stream = 0;
};

unique_ptr<GlobalTableFunctionState> MetadataInit(ClientContext &context, TableFunctionInitInput &input) {
	auto &bind = input.bind_data->Cast<MetadataBindData>();
	auto state = make_uniq<MetadataState>();
	state->source = make_uniq<FileSource>(context, bind.path);
	state->meta = GetMetadata(*state->source);
	std::vector<size_t> route;
	for (size_t c = 0; c < state->meta->fields.size(); c++) {
		auto &f = state->meta->fields[c];
		AddStreams(c, f.name, 0, f.type, route, state->streams);
	}
	return std::move(state);
}

Value StatValue(const LogicalType &type, const vtx::ZoneStats &stats, bool min) {
	if (!stats.has_minmax) {
		return Value(LogicalType::VARCHAR);
	}
	if (compat::IsGeometry(type)) {
		// A GEOMETRY's bounds are its WKB's, cut short where long: bytes, not always a geometry.
		return Value(RawToValue(LogicalType::BLOB, min ? stats.min : stats.max).ToString());
	}
	const auto &raw = min ? stats.min : stats.max;
	if (type.id() == LogicalTypeId::VARCHAR && !stats.minmax_exact) {
		// A cut bound may end inside a character: shown up to the last whole one (still a
		// prefix of the bound), as DuckDB refuses a VARCHAR that is not UTF-8.
		auto bytes = reinterpret_cast<const uint8_t *>(raw.data());
		size_t n = raw.size();
		for (size_t back = 1; back <= 3 && back <= n; back++) {
			if (vtx::StartsCharacter(bytes + n - back, back)) {
				n = vtx::ValidUtf8(bytes + n - back, back) ? n : n - back;
				break;
			}
		}
		if (vtx::ValidUtf8(bytes, n)) {
			return Value(raw.substr(0, n));
		}
		return Value(RawToValue(LogicalType::BLOB, raw).ToString());
	}
	return Value(RawToValue(type, raw).ToString());
}

//! Reads the segment, which verifies its CRC-32C and decompresses it.
const char *VerifySegment(FileSource &source, const vtx::ChunkMeta &chunk) {
	try {
		vtx::ReadSegment(source, chunk);
		return "ok";
	} catch (vtx::FormatError &) {
		return "mismatch";
	}
}

void MetadataScan(ClientContext &, TableFunctionInput &data, DataChunk &output) {
	auto &bind = data.bind_data->Cast<MetadataBindData>();
	auto &state = data.global_state->Cast<MetadataState>();
	auto &meta = *state.meta;
	idx_t count = 0;
	while (count < STANDARD_VECTOR_SIZE && state.zone < meta.zones.size()) {
		auto &zone = meta.zones[state.zone];
		if (state.stream >= state.streams.size()) {
			state.zone++;
			state.stream = 0;
			continue;
		}
		auto &ref = state.streams[state.stream++];
		auto c = ref.column;
		auto &field = meta.fields[c];
		const vtx::ChunkMeta *node = &zone.chunks[c];
		for (auto i : ref.route) {
			node = &node->children[i];
		}
		auto &chunk = *node;
		auto &stats = chunk.stats;
		auto &type = ref.type;
		idx_t col = 0;
		output.SetValue(col++, count, Value::BIGINT(NumericCast<int64_t>(state.zone)));
		output.SetValue(col++, count, Value::BIGINT(NumericCast<int64_t>(zone.first_row)));
		output.SetValue(col++, count, Value::BIGINT(NumericCast<int64_t>(zone.rows)));
		output.SetValue(col++, count, Value::INTEGER(NumericCast<int32_t>(c)));
		output.SetValue(col++, count, Value(field.name));
		output.SetValue(col++, count, Value(type.ToString()));
		output.SetValue(col++, count, Value(vtx::EncodingName(static_cast<vtx::Encoding>(chunk.encoding))));
		output.SetValue(col++, count, Value(vtx::CodecName(chunk.codec)));
		output.SetValue(col++, count, Value::UBIGINT(chunk.stored_size));
		output.SetValue(col++, count, Value::UBIGINT(chunk.raw_size));
		output.SetValue(col++, count, Value::UBIGINT(chunk.offset));
		output.SetValue(col++, count, Value::UBIGINT(stats.nulls));
		output.SetValue(col++, count, Value::UBIGINT(stats.nans));
		output.SetValue(col++, count, StatValue(type, stats, true));
		output.SetValue(col++, count, StatValue(type, stats, false));
		output.SetValue(col++, count, stats.has_minmax ? Value::BOOLEAN(stats.minmax_exact) : Value(LogicalType::BOOLEAN));
		output.SetValue(col++, count, bind.verify ? Value(VerifySegment(*state.source, chunk)) : Value(LogicalType::VARCHAR));
		output.SetValue(col++, count, Value(ref.path));
		output.SetValue(col++, count, Value::INTEGER(ref.depth));
		output.SetValue(col++, count, Value::UBIGINT(stats.rows));
		output.SetValue(col++, count, Value::INTEGER(NumericCast<int32_t>(meta.version)));
		count++;
	}
	output.SetCardinality(count);
}

} // namespace

TableFunction GetVortexMetadataFunction() {
	TableFunction tf("vortex_metadata", {LogicalType::VARCHAR}, MetadataScan, MetadataBind, MetadataInit);
	tf.named_parameters["verify"] = LogicalType::BOOLEAN;
	return tf;
}

} // namespace vortex
