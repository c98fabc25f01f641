#pragma once
#include "../column.hpp"
#include "../encodings/value_hint.hpp"
#include "stats.hpp"

namespace vtx {

//! Computes the exact zone statistics of a chunk about to be written.
//! With `truncate_strings`, string min/max longer than kMaxStatString are cut and flagged inexact.
//! With `distinct`, the distinct values where there are few (ZoneStats::distinct), taken from
//! `hint` where the chunk's encoding settled them.
ZoneStats ComputeStats(const ColumnInput &in, bool truncate_strings = true, bool distinct = false,
                       const ValueHint *hint = nullptr);

} // namespace vtx
