// Footers parsed once per file version. A cached footer is reused only while the file's
// size and trailer (footer length and checksum) are unchanged, checked with one small read
// per query, so rewritten files are never answered from stale statistics.
#pragma once
#include "file_io.hpp"

#include <memory>

namespace vortex {

std::shared_ptr<const vtx::FileMetadata> GetMetadata(FileSource &source);

} // namespace vortex
