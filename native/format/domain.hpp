// The values each type may hold: the subset of its storage that DuckDB itself can produce.
// Storage admits more (a BOOLEAN byte of 2, a TIME of -1 µs, a DECIMAL(4,1) of 3276.7), and DuckDB
// trusts its values: such a value can print garbage, answer wrongly (round(), comparisons) or
// crash DuckDB outright (TIME beyond a day). Readers check decoded values and statistics with
// these functions before anything reaches DuckDB.
#pragma once
#include "types.hpp"

#include <cstdint>
#include <string>

namespace vtx {

//! Whether the type restricts its storage at all (BOOLEAN, DECIMAL, TIME, TIME WITH TIME ZONE).
bool HasRestrictedDomain(const ColumnType &type);

//! Whether all `n` values (each ByteWidth() bytes) lie in the type's domain.
bool ValuesInDomain(const ColumnType &type, const uint8_t *values, uint64_t n);

//! Throws FormatError unless all `n` values (each ByteWidth() bytes) lie in the type's domain.
void CheckDomain(const ColumnType &type, const uint8_t *values, uint64_t n);

//! Whether one raw value (e.g. a statistic) lies in the type's domain.
bool InDomain(const ColumnType &type, const std::string &raw);

} // namespace vtx
