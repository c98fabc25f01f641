// tpcdsgen SF OUTDIR
//
// Generates TPC-DS data with DuckDB's own dsdgen code (the tpcds extension's dsdgen/ sources,
// compiled alongside this file by gen.sh) into an in-memory DuckDB database, then writes each
// table to OUTDIR/<table>.parquet.
// The two DSDGenWrapper calls are exactly what `CALL dsdgen(sf=SF)` runs
// (extension/tpcds/tpcds_extension.cpp, DsdgenFunction) with its default arguments:
// catalog = default, schema = main, no suffix, keys = false, overwrite = false.
#include "duckdb.hpp"
#include "duckdb/main/client_context.hpp"
#include "duckdb/transaction/meta_transaction.hpp"
#include "dsdgen.hpp"

#include <cstdio>
#include <string>
#include <vector>

static std::string SqlQuote(const std::string &s, char q = '\'') {
	std::string r(1, q);
	for (char c : s) {
		r += c;
		if (c == q) {
			r += q;
		}
	}
	return r + q;
}

int main(int argc, char **argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: %s SF OUTDIR\n", argv[0]);
		return 2;
	}
	double sf = std::stod(argv[1]);
	std::string outdir = argv[2];
	try {
		duckdb::DuckDB db(nullptr); // in-memory
		duckdb::Connection con(db);
		con.context->RunFunctionInTransaction([&]() {
			// a SQL `CALL dsdgen(...)` declares this write at bind time; do it by hand here
			auto &catalog = duckdb::Catalog::GetCatalog(*con.context, INVALID_CATALOG);
			duckdb::MetaTransaction::Get(*con.context).ModifyDatabase(catalog.GetAttached());
			tpcds::DSDGenWrapper::CreateTPCDSSchema(*con.context, INVALID_CATALOG, DEFAULT_SCHEMA, "", false, false);
			tpcds::DSDGenWrapper::DSDGen(sf, *con.context, INVALID_CATALOG, DEFAULT_SCHEMA, "");
		});
		auto tables = con.Query("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' ORDER BY table_name");
		if (tables->HasError()) {
			fprintf(stderr, "tpcdsgen: %s\n", tables->GetError().c_str());
			return 1;
		}
		std::vector<std::string> names;
		for (duckdb::idx_t i = 0; i < tables->RowCount(); i++) {
			names.push_back(tables->GetValue(0, i).ToString());
		}
		for (auto &table : names) {
			std::string file = outdir + "/" + table + ".parquet";
			auto res = con.Query("COPY " + SqlQuote(table, '"') + " TO " + SqlQuote(file) + " (FORMAT parquet)");
			if (res->HasError()) {
				fprintf(stderr, "tpcdsgen: %s: %s\n", table.c_str(), res->GetError().c_str());
				return 1;
			}
		}
		fprintf(stderr, "tpcdsgen: wrote %zu tables\n", names.size());
	} catch (std::exception &e) {
		fprintf(stderr, "tpcdsgen: %s\n", duckdb::ErrorData(e).Message().c_str());
		return 1;
	}
	return 0;
}
