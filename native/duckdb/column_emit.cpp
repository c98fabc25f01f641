#include "column_emit.hpp"

#include <cstring>

namespace vortex {

using namespace duckdb;

namespace {

//! Keeps a decoded chunk alive as long as a DuckDB vector points into it.
class ChunkBuffer : public VectorBuffer {
public:
	explicit ChunkBuffer(std::shared_ptr<vtx::DecodedColumn> chunk)
	    : VectorBuffer(VectorBufferType::OPAQUE_BUFFER), chunk(std::move(chunk)) {
	}
	std::shared_ptr<vtx::DecodedColumn> chunk;
};

} // namespace

void EmitColumn(const vtx::DecodedColumn &chunk, const std::shared_ptr<vtx::DecodedColumn> &owner, idx_t offset,
                idx_t count, uint32_t width, Vector &out) {
	if (chunk.all_null) {
		out.SetVectorType(VectorType::CONSTANT_VECTOR);
		ConstantVector::SetNull(out, true);
		return;
	}
	if (width == 0) {
		auto data = FlatVector::GetData<string_t>(out);
		bool referenced = false;
		const vtx::StringRef *src = chunk.strings.data() + offset;
		for (idx_t i = 0; i < count; i++) {
			data[i] = string_t(src[i].ptr, src[i].len);
			referenced |= src[i].len > string_t::INLINE_LENGTH;
		}
		if (referenced) {
			StringVector::AddBuffer(out, make_buffer<ChunkBuffer>(owner));
		}
	} else {
		// The chunk's values are aligned to their width (or to 8 bytes): reference them.
		FlatVector::SetData(out, const_cast<data_ptr_t>(chunk.Fixed() + offset * width));
		out.SetAuxiliary(make_buffer<ChunkBuffer>(owner));
	}
	if (!chunk.all_valid) {
		// offset is a multiple of STANDARD_VECTOR_SIZE, so whole words line up.
		auto &mask = FlatVector::Validity(out);
		mask.Initialize(MaxValue<idx_t>(count, STANDARD_VECTOR_SIZE));
		auto words = (count + 63) / 64;
		std::memcpy(mask.GetData(), chunk.validity.data() + offset / 64, words * sizeof(uint64_t));
	}
}

} // namespace vortex
