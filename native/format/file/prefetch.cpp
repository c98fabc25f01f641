#include "prefetch.hpp"

#include <algorithm>
#include <cstring>

namespace vtx {

namespace {

//! ReadStream's walk (reader.cpp): the stream's segment, then its children's, where read.
void SelectedSegments(const ChunkMeta &chunk, const ColumnType &type, const StreamSelection *selection,
                      std::vector<ByteRange> &out) {
	out.push_back(ByteRange {chunk.offset, chunk.stored_size});
	auto &children = type.Children();
	if (children.empty() || chunk.children.size() != children.size()) {
		return;
	}
	const bool partial = selection && !selection->all && type.id == TypeId::STRUCT &&
	                     selection->children.size() == children.size();
	for (size_t i = 0; i < children.size(); i++) {
		if (partial && !selection->children[i].included) {
			continue;
		}
		SelectedSegments(chunk.children[i], children[i].type, partial ? &selection->children[i] : nullptr, out);
	}
}

} // namespace

void ChunkSegments(const FileMetadata &meta, size_t zone, size_t column, const StreamSelection *selection,
                   std::vector<ByteRange> &out) {
	if (zone >= meta.zones.size() || column >= meta.zones[zone].chunks.size() || column >= meta.fields.size()) {
		return; // ReadChunk reports it
	}
	SelectedSegments(meta.zones[zone].chunks[column], meta.fields[column].type, selection, out);
}

void StreamSegments(const ChunkMeta &chunk, const ColumnType &type, std::vector<ByteRange> &out) {
	SelectedSegments(chunk, type, nullptr, out);
}

std::vector<ByteRange> Coalesce(std::vector<ByteRange> ranges, uint64_t gap) {
	ranges.erase(std::remove_if(ranges.begin(), ranges.end(), [](const ByteRange &r) { return r.size == 0; }),
	             ranges.end());
	std::sort(ranges.begin(), ranges.end(),
	          [](const ByteRange &a, const ByteRange &b) { return a.offset < b.offset; });
	std::vector<ByteRange> out;
	for (auto &r : ranges) {
		if (!out.empty()) {
			auto &last = out.back();
			const uint64_t end = last.offset + last.size;
			if (r.offset <= end || r.offset - end <= gap) {
				last.size = std::max(end, r.offset + r.size) - last.offset;
				continue;
			}
		}
		out.push_back(r);
	}
	return out;
}

void PrefetchedSource::Fetch(const std::vector<ByteRange> &segments, uint64_t gap) {
	runs.clear();
	const auto size = source.Size();
	for (auto &run : Coalesce(segments, gap)) {
		size_t inside = 0;
		for (auto &s : segments) {
			inside += s.size && s.offset >= run.offset && s.offset + s.size <= run.offset + run.size;
		}
		// A lone segment gains nothing; a range past the end is left to the segment's own read,
		// which reports it.
		if (inside < 2 || run.offset > size || run.size > size - run.offset) {
			continue;
		}
		Run r;
		r.offset = run.offset;
		r.bytes.resize(run.size);
		source.ReadAt(run.offset, r.bytes.data(), r.bytes.size());
		runs.push_back(std::move(r));
	}
}

void PrefetchedSource::ReadAt(uint64_t offset, uint8_t *dst, size_t n) {
	for (auto &r : runs) {
		if (offset >= r.offset && n <= r.bytes.size() && offset - r.offset <= r.bytes.size() - n) {
			if (n) {
				std::memcpy(dst, r.bytes.data() + (offset - r.offset), n);
			}
			return;
		}
	}
	source.ReadAt(offset, dst, n);
}

} // namespace vtx
