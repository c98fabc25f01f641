#include "distinct_set.hpp"

#include <cstring>

namespace vtx {
namespace compute {

namespace {

inline uint64_t Mix(uint64_t x) {
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

} // namespace

DistinctSet::DistinctSet(const ColumnType &type_p) : type(type_p) {
	const auto w = type.ByteWidth();
	width = (w >= 1 && w <= 8) ? w : 0;
	if (width) {
		slots.assign(64, 0);
	}
}

uint64_t DistinctSet::WordOf(const uint8_t *p) const {
	uint64_t w = 0;
	std::memcpy(&w, p, width);
	return w;
}

void DistinctSet::Grow() {
	std::vector<uint64_t> old;
	old.swap(slots);
	slots.assign(old.size() * 2, 0);
	words_used = 0;
	InsertTable(old);
}

void DistinctSet::InsertTable(const std::vector<uint64_t> &table) {
	// In batches with prefetching, as any insert: the destination is as far out of cache.
	uint64_t batch[256];
	size_t n = 0;
	for (auto w : table) {
		if (w) {
			batch[n++] = w;
			if (n == 256) {
				InsertWords(batch, n);
				n = 0;
			}
		}
	}
	InsertWords(batch, n);
}

void DistinctSet::InsertWord(uint64_t w) {
	if (w == 0) {
		has_zero = true;
		return;
	}
	if ((words_used + 1) * 2 > slots.size()) {
		Grow();
	}
	const uint64_t mask = slots.size() - 1;
	for (uint64_t i = Mix(w) & mask;; i = (i + 1) & mask) {
		if (slots[i] == w) {
			return;
		}
		if (slots[i] == 0) {
			slots[i] = w;
			words_used++;
			return;
		}
	}
}

void DistinctSet::Reserve(uint64_t n) {
	if (words_used != 0) {
		return;
	}
	uint64_t size = slots.size();
	while (size < 2 * n) {
		size *= 2;
	}
	if (size != slots.size()) {
		slots.assign(size, 0);
	}
}

void DistinctSet::InsertWords(const uint64_t *words, size_t n) {
	constexpr size_t kAhead = 8;
	for (size_t i = 0; i < n; i++) {
		if (i + kAhead < n) {
			__builtin_prefetch(&slots[Mix(words[i + kAhead]) & (slots.size() - 1)]);
		}
		InsertWord(words[i]);
	}
}

void DistinctSet::Insert(const std::string &raw) {
	if (width) {
		InsertWord(WordOf(reinterpret_cast<const uint8_t *>(raw.data())));
	} else {
		strings.insert(raw);
	}
}

void DistinctSet::InsertAll(const ColumnInput &in) {
	if (width) {
		Reserve(in.count);
		uint64_t batch[256];
		size_t n = 0;
		for (uint64_t i = 0; i < in.count; i++) {
			if (in.IsValid(i)) {
				batch[n++] = WordOf(in.fixed + i * width);
				if (n == 256) {
					InsertWords(batch, n);
					n = 0;
				}
			}
		}
		InsertWords(batch, n);
		return;
	}
	for (uint64_t i = 0; i < in.count; i++) {
		if (!in.IsValid(i)) {
			continue;
		}
		if (type.IsString()) {
			strings.emplace(in.strings[i].ptr, in.strings[i].len);
		} else {
			strings.emplace(reinterpret_cast<const char *>(in.fixed + i * type.ByteWidth()), type.ByteWidth());
		}
	}
}

void DistinctSet::InsertDecoded(const DecodedColumn &chunk, const uint8_t *selected, uint64_t begin, uint64_t end) {
	if (chunk.all_null) {
		return;
	}
	if (width) {
		Reserve(end - begin);
		uint64_t batch[256];
		size_t n = 0;
		for (uint64_t i = begin; i < end; i++) {
			if ((!selected || selected[i]) && chunk.IsValid(i)) {
				batch[n++] = WordOf(chunk.Fixed() + i * width);
				if (n == 256) {
					InsertWords(batch, n);
					n = 0;
				}
			}
		}
		InsertWords(batch, n);
		return;
	}
	for (uint64_t i = begin; i < end; i++) {
		if ((selected && !selected[i]) || !chunk.IsValid(i)) {
			continue;
		}
		if (type.IsString()) {
			auto &s = chunk.StringAt(i);
			strings.emplace(s.ptr, s.len);
		} else {
			strings.emplace(reinterpret_cast<const char *>(chunk.Fixed() + i * type.ByteWidth()), type.ByteWidth());
		}
	}
}

void DistinctSet::Merge(const DistinctSet &other) {
	has_zero = has_zero || other.has_zero;
	Reserve(other.words_used);
	InsertTable(other.slots);
	for (auto &s : other.strings) {
		strings.insert(s);
	}
}

uint64_t DistinctSet::Bytes() const {
	uint64_t n = slots.capacity() * sizeof(uint64_t);
	for (auto &s : strings) {
		n += s.capacity() + 48; // node, hash and string header
	}
	return n;
}

} // namespace compute
} // namespace vtx
