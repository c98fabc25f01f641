// Decoded chunks of one scan, handed back when DuckDB lets go of the last vector that points into
// them and decoded into again for a later zone: a zone-sized buffer written afresh costs a page
// fault and the kernel's zeroing per page, which took a tenth of a short query's time. The pool
// lives as long as the scan's global state, so its memory goes back once the query is done.
#pragma once
#include "../../format/column.hpp"

#include <memory>
#include <mutex>
#include <vector>

namespace vortex {

class DecodePool : public std::enable_shared_from_this<DecodePool> {
public:
	//! Keeps at most `limit` idle chunks.
	explicit DecodePool(size_t limit) : limit_(limit) {
	}
	//! An empty chunk (a recycled one where there is one), returned here when released.
	std::shared_ptr<vtx::DecodedColumn> Get();

private:
	void Put(vtx::DecodedColumn *chunk);

	const size_t limit_;
	std::mutex lock_;
	std::vector<std::unique_ptr<vtx::DecodedColumn>> idle_;
};

} // namespace vortex
