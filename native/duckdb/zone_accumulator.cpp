#include "zone_accumulator.hpp"

#include "../format/scratch.hpp"

namespace vortex {

using namespace duckdb;

namespace {
// Column buffers outlive an accumulator on the thread that used it: COPY creates one per
// batch, and fresh zone-sized buffers would cost a page fault per page every time. They are
// released when no COPY or scan is in flight any more (format/scratch.hpp).
template <class COLUMN>
class ColumnPool : public vtx::ScratchSlotBase {
public:
	std::vector<COLUMN> columns;
	~ColumnPool() override {
		Unregister();
	}
	static size_t Held(const COLUMN &col) {
		return col.valid.capacity() + col.fixed.capacity() + col.offsets.capacity() * sizeof(uint64_t) +
		       col.bytes.capacity();
	}
	size_t Bytes() const override {
		size_t n = columns.capacity() * sizeof(COLUMN);
		for (auto &col : columns) {
			n += Held(col);
		}
		return n;
	}
	void Release() override {
		std::vector<COLUMN>().swap(columns);
	}
};

template <class COLUMN>
ColumnPool<COLUMN> &Pool() {
	thread_local ColumnPool<COLUMN> pool;
	return pool;
}
} // namespace

ZoneAccumulator::ZoneAccumulator(std::vector<vtx::ColumnType> types_p, vtx::WriterOptions options_p)
    : types(std::move(types_p)), options(options_p) {
	vtx::ScratchLease lease;
	auto &pool = Pool<Column>().columns;
	while (columns.size() < types.size()) {
		if (pool.empty()) {
			columns.emplace_back();
		} else {
			columns.push_back(std::move(pool.back()));
			pool.pop_back();
		}
	}
}

ZoneAccumulator::~ZoneAccumulator() {
	vtx::ScratchLease lease;
	auto &pool = Pool<Column>().columns;
	for (auto &col : columns) {
		// Bounded: a thread keeps at most 64 columns of at most 16 MiB each, and only while a
		// COPY or scan is in flight.
		if (pool.size() < 64 && ColumnPool<Column>::Held(col) <= (size_t(16) << 20)) {
			col.Clear();
			pool.push_back(std::move(col));
		}
	}
}

void ZoneAccumulator::Append(DataChunk &chunk, std::vector<vtx::EncodedZone> &out) {
	idx_t done = 0;
	while (done < chunk.size()) {
		idx_t take = std::min<idx_t>(chunk.size() - done, options.zone_rows - rows);
		AppendRange(chunk, done, take);
		done += take;
		if (rows >= options.zone_rows) {
			Flush(out);
		}
	}
}

void ZoneAccumulator::AppendRange(DataChunk &chunk, idx_t start, idx_t count) {
	for (idx_t c = 0; c < types.size(); c++) {
		auto &col = columns[c];
		if (col.valid.capacity() < options.zone_rows) {
			col.valid.reserve(options.zone_rows);
			col.fixed.reserve(options.zone_rows * types[c].ByteWidth());
			col.offsets.reserve(types[c].ByteWidth() ? 0 : options.zone_rows);
		}
		UnifiedVectorFormat fmt;
		chunk.data[c].ToUnifiedFormat(chunk.size(), fmt);
		col.valid.resize(rows + count);
		const auto width = types[c].ByteWidth();
		if (width) {
			col.fixed.resize((rows + count) * width);
		}
		const bool flat = !fmt.sel->IsSet();
		if (width && flat && fmt.validity.AllValid()) {
			// The common case: one copy per chunk instead of one per value.
			std::memset(col.valid.data() + rows, 1, count);
			std::memcpy(col.fixed.data() + rows * width, fmt.data + start * width, count * width);
			continue;
		}
		for (idx_t i = 0; i < count; i++) {
			auto idx = fmt.sel->get_index(start + i);
			bool valid = fmt.validity.RowIsValid(idx);
			col.valid[rows + i] = valid;
			col.any_null |= !valid;
			if (width) {
				std::memcpy(col.fixed.data() + (rows + i) * width, fmt.data + idx * width, width);
			} else {
				if (valid) {
					auto &s = reinterpret_cast<const string_t *>(fmt.data)[idx];
					col.bytes.append(s.GetData(), s.GetSize());
				}
				col.offsets.push_back(col.bytes.size());
			}
		}
	}
	rows += count;
}

void ZoneAccumulator::Flush(std::vector<vtx::EncodedZone> &out) {
	if (rows == 0) {
		return;
	}
	std::vector<vtx::ColumnInput> inputs(types.size());
	std::vector<std::vector<vtx::StringRef>> strings(types.size());
	for (idx_t c = 0; c < types.size(); c++) {
		auto &col = columns[c];
		auto &in = inputs[c];
		in.type = types[c];
		in.count = rows;
		in.valid = col.any_null ? col.valid.data() : nullptr;
		if (types[c].ByteWidth()) {
			in.fixed = col.fixed.data();
		} else {
			strings[c].resize(rows);
			uint64_t begin = 0;
			for (uint64_t i = 0; i < rows; i++) {
				auto end = col.offsets[i];
				if (end - begin > UINT32_MAX) {
					throw InvalidInputException("vortex: a string longer than 4 GiB cannot be stored");
				}
				strings[c][i] = vtx::StringRef {col.bytes.data() + begin, static_cast<uint32_t>(end - begin)};
				begin = end;
			}
			in.strings = strings[c].data();
		}
	}
	out.push_back(vtx::EncodeZone(inputs, options));
	for (auto &col : columns) {
		col.Clear();
	}
	rows = 0;
}

} // namespace vortex
