// Exact per-zone statistics of one column chunk: enough to answer count/sum/avg/min/max
// and to skip zones under a filter without reading data.
#pragma once
#include "../bytes.hpp"
#include "exact_sum.hpp"
#include "../types.hpp"

#include <array>
#include <string>
#include <vector>

namespace vtx {

//! Longer string min/max are truncated and flagged inexact: never used for answers or pruning.
constexpr size_t kMaxStatString = 64;

//! Distinct values a zone keeps in its statistics at most (and their bytes at most).
constexpr size_t kMaxDistinctValues = 32;
constexpr size_t kMaxDistinctBytes = 1024;
//! HyperLogLog registers of a zone's sketch (DuckDB's approx_count_distinct: 2^6).
constexpr size_t kSketchRegisters = 64;

//! The most rows one zone may hold: what the writer accepts (ROW_GROUP_SIZE <= 2^30), and the
//! bound that keeps every size a reader derives from a row count far from overflowing.
constexpr uint64_t kMaxZoneRows = uint64_t(1) << 30;

//! Types whose zones keep distinct values: those whose equal values have equal bytes (integers,
//! decimals, temporal types, UUID, strings), flat.
bool DistinctType(const ColumnType &type);
//! Orders raw bytes: unsigned bytes, then length (the order of ZoneStats::distinct).
int CompareRawBytes(const std::string &a, const std::string &b);

struct ZoneStats {
	uint64_t rows = 0;
	uint64_t nulls = 0;
	uint64_t nans = 0;    //! floats: NaN values (both signs)
	uint64_t pos_inf = 0; //! floats: +inf values
	uint64_t neg_inf = 0; //! floats: -inf values
	bool has_minmax = false;
	bool minmax_exact = false;
	//! Raw little-endian value bytes (fixed width) or the string bytes. For floats the
	//! smallest/largest non-NaN value (infinities included).
	std::string min, max;
	bool has_int_sum = false;
	int128 int_sum = 0; //! exact sum of non-null values (integers of at most 64 bits)
	//! Floats, format version 4: the exact sum of the finite values.
	bool has_exact_sum = false;
	ExactSum exact_sum;
	//! Floats, format versions 1-3: the finite values added up as doubles in row order. Read but
	//! never used for answers: it depends on the zone's size and order (exact_sum does not).
	bool has_float_sum = false;
	double finite_sum = 0;
	//! Version 4, flat columns: HyperLogLog registers of the query engine's hash of each non-NULL
	//! value (written by the DuckDB layer, which knows the hash; see the footer's fingerprints).
	bool has_sketch = false;
	std::array<uint8_t, kSketchRegisters> sketch {};
	//! Version 4: the zone's distinct non-NULL values, raw, bytewise ascending, where there are
	//! few (kMaxDistinctValues, kMaxDistinctBytes) and the type compares raw bytes for equality.
	bool has_distinct = false;
	std::vector<std::string> distinct;

	uint64_t NonNull() const {
		return rows - nulls;
	}
	void Serialize(ByteWriter &w) const;
	//! `version`: the file's format version (float sums are exact from version 4 on).
	static ZoneStats Deserialize(ByteReader &r, const ColumnType &type, uint32_t version);
};

} // namespace vtx
