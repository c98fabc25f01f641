#include "distinct_set.hpp"

#include "selection.hpp"
#include "../format/scratch.hpp"

#include "../format/encodings/dictionary_builder.hpp"

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
	width = (w == 1 || w == 2 || w == 4 || w == 8) ? w : 0; // InsertDecoded reads these widths
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

void DistinctSet::GrowStrings() {
	std::vector<StringSlot> old;
	old.swap(string_slots);
	string_slots.assign(old.empty() ? 64 : old.size() * 2, StringSlot {0, 0, 0});
	const uint64_t mask = string_slots.size() - 1;
	for (auto &s : old) {
		if (!s.hash) {
			continue;
		}
		uint64_t i = s.hash & mask;
		while (string_slots[i].hash) {
			i = (i + 1) & mask;
		}
		string_slots[i] = s;
	}
}

void DistinctSet::InsertHashed(uint64_t hash, const char *p, uint32_t len) {
	if ((strings_used + 1) * 2 > string_slots.size()) {
		GrowStrings();
	}
	const uint64_t mask = string_slots.size() - 1;
	for (uint64_t i = hash & mask;; i = (i + 1) & mask) {
		auto &slot = string_slots[i];
		if (!slot.hash) {
			slot = StringSlot {hash, arena.size(), len};
			arena.insert(arena.end(), p, p + len);
			strings_used++;
			return;
		}
		if (slot.hash == hash && slot.len == len && std::memcmp(arena.data() + slot.offset, p, len) == 0) {
			return;
		}
	}
}

void DistinctSet::InsertBytes(const char *p, uint32_t len) {
	// The writer's dictionary hash, made odd so that 0 marks an empty slot.
	InsertHashed(KeyHash<std::string_view>()(std::string_view(p, len)) | 1, p, len);
}

void DistinctSet::Insert(const std::string &raw) {
	if (width) {
		InsertWord(WordOf(reinterpret_cast<const uint8_t *>(raw.data())));
	} else {
		InsertBytes(raw.data(), static_cast<uint32_t>(raw.size()));
	}
}

void DistinctSet::InsertDictionary(const DecodedColumn &chunk, const uint8_t *selected, uint64_t begin, uint64_t end) {
	// Which entries the rows use, then each of those once: a zone of 100k rows over 5k entries
	// hashes 5k strings, not 100k.
	thread_local std::vector<uint8_t> used;
	UsedEntries(chunk, selected, begin, end, used);
	for (size_t e = 0; e < used.size(); e++) {
		if (used[e]) {
			InsertBytes(chunk.dictionary[e].ptr, chunk.dictionary[e].len);
		}
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
			InsertBytes(in.strings[i].ptr, in.strings[i].len);
		} else {
			InsertBytes(reinterpret_cast<const char *>(in.fixed + i * type.ByteWidth()),
			            static_cast<uint32_t>(type.ByteWidth()));
		}
	}
}

void DistinctSet::InsertDecoded(const DecodedColumn &chunk, const uint8_t *selected, uint64_t begin, uint64_t end) {
	if (chunk.all_null) {
		return;
	}
	if (width) {
		// The kept values first, a value equal to the one before it left out: clustered and
		// run-length columns repeat in runs, and a table sized for every row of the zone (2 MiB
		// for 122,880 rows) made each of a few hundred values' lookups a cache miss (pushed
		// count(DISTINCT) of a 471-value TIMESTAMP was 2.3x DuckDB's own).
		// Without a branch per row (the rows a filter keeps fall where the data puts them), and
		// a value read at its width known when compiled, not through a call to memcpy.
		ScratchLease lease;
		thread_local ScratchSlot<std::vector<uint64_t>> words_slot;
		auto &words = words_slot.value;
		words.resize(end - begin);
		size_t n = 0;
		auto gather = [&](auto unit) {
			using T = decltype(unit);
			const uint8_t *base = chunk.Fixed();
			uint64_t prev = 0;
			bool any = false;
			for (uint64_t i = begin; i < end; i++) {
				const bool take = (!selected || selected[i]) && chunk.IsValid(i);
				T x;
				std::memcpy(&x, base + i * sizeof(T), sizeof(T));
				const auto w = static_cast<uint64_t>(x);
				words[n] = w;
				n += take & (!any | (w != prev));
				prev = take ? w : prev;
				any |= take;
			}
		};
		switch (width) {
		case 1: gather(uint8_t()); break;
		case 2: gather(uint16_t()); break;
		case 4: gather(uint32_t()); break;
		default: gather(uint64_t()); break;
		}
		Reserve(n);
		InsertWords(words.data(), n);
		return;
	}
	if (type.IsString() && !chunk.codes.empty()) {
		InsertDictionary(chunk, selected, begin, end);
		return;
	}
	for (uint64_t i = begin; i < end; i++) {
		if ((selected && !selected[i]) || !chunk.IsValid(i)) {
			continue;
		}
		if (type.IsString()) {
			auto &s = chunk.StringAt(i);
			InsertBytes(s.ptr, s.len);
		} else {
			InsertBytes(reinterpret_cast<const char *>(chunk.Fixed() + i * type.ByteWidth()),
			            static_cast<uint32_t>(type.ByteWidth()));
		}
	}
}

void DistinctSet::Merge(const DistinctSet &other) {
	has_zero = has_zero || other.has_zero;
	Reserve(other.words_used);
	InsertTable(other.slots);
	for (auto &s : other.string_slots) {
		if (s.hash) {
			InsertHashed(s.hash, other.arena.data() + s.offset, s.len);
		}
	}
}

uint64_t DistinctSet::Bytes() const {
	return slots.capacity() * sizeof(uint64_t) + string_slots.capacity() * sizeof(StringSlot) + arena.capacity();
}

} // namespace compute
} // namespace vtx
