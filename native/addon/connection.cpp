#include "connection.hpp"

namespace vortex_addon {

namespace {

// @duckdb/node-bindings keeps a connection as an external whose data starts with the C API
// handle; the C API's duckdb_connection is a duckdb::Connection *.
struct NodeBindingsConnection {
	duckdb::Connection *connection;
};

// The N-API type tag @duckdb/node-bindings puts on its connection externals (its
// ConnectionTypeTag). Its other externals (prepared statements, appenders, results, ...) carry
// other tags, and an External from any other addon carries none: only a tagged one may be
// read as a NodeBindingsConnection.
constexpr napi_type_tag kNodeBindingsConnectionTag = {0x922B9BF54AB04DFC, 0x8A258578D371DB71};

} // namespace

duckdb::Connection &ConnectionOf(const Napi::Value &value) {
	auto env = value.Env();
	if (!value.IsExternal() || !value.As<Napi::Object>().CheckTypeTag(&kNodeBindingsConnectionTag)) {
		throw Napi::TypeError::New(env, "duckdb-vortex: expected the connection handle of @duckdb/node-bindings "
		                                "(DuckDBConnection's), got " +
		                                    std::string(value.IsExternal() ? "another native handle" : "a non-handle value"));
	}
	auto *handle = value.As<Napi::External<NodeBindingsConnection>>().Data();
	if (!handle || !handle->connection || !handle->connection->context) {
		throw Napi::Error::New(env, "duckdb-vortex: the connection is closed");
	}
	return *handle->connection;
}

} // namespace vortex_addon
