// Assigns dense codes to distinct values with an open-addressing hash table, giving up as
// soon as the dictionary would exceed its limit. Cheaper than std::unordered_map on the
// write path, where every value of every chunk passes through it.
#pragma once
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace vtx {

template <class KEY>
struct KeyHash {
	uint64_t operator()(const KEY &k) const {
		uint64_t lo, hi = 0;
		if constexpr (sizeof(KEY) <= 8) {
			lo = static_cast<uint64_t>(k);
		} else {
			lo = static_cast<uint64_t>(k);
			hi = static_cast<uint64_t>(k >> 64);
		}
		uint64_t h = (lo ^ (hi * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
		return h ^ (h >> 31);
	}
};

template <>
struct KeyHash<std::string_view> {
	uint64_t operator()(const std::string_view &s) const {
		uint64_t h = 0xcbf29ce484222325ull ^ s.size();
		size_t i = 0;
		for (; i + 8 <= s.size(); i += 8) {
			uint64_t w;
			std::memcpy(&w, s.data() + i, 8);
			h = (h ^ w) * 0x100000001b3ull;
			h ^= h >> 29;
		}
		for (; i < s.size(); i++) {
			h = (h ^ static_cast<uint8_t>(s[i])) * 0x100000001b3ull;
		}
		return h ^ (h >> 32);
	}
};

template <class KEY>
class DictionaryBuilder {
public:
	explicit DictionaryBuilder(uint64_t limit) : limit(limit) {
		uint64_t cap = 16;
		while (cap < limit * 2) {
			cap <<= 1;
		}
		slots.assign(cap, kEmpty);
		mask = cap - 1;
	}

	//! Code of `key`, inserting it if new; false when the dictionary is full.
	bool Insert(const KEY &key, uint32_t &code) {
		uint64_t i = KeyHash<KEY>()(key) & mask;
		while (true) {
			uint32_t s = slots[i];
			if (s == kEmpty) {
				if (values.size() >= limit) {
					return false;
				}
				code = static_cast<uint32_t>(values.size());
				slots[i] = code;
				values.push_back(key);
				return true;
			}
			if (values[s] == key) {
				code = s;
				return true;
			}
			i = (i + 1) & mask;
		}
	}

	std::vector<KEY> values;

private:
	static constexpr uint32_t kEmpty = UINT32_MAX;
	uint64_t limit;
	uint64_t mask;
	std::vector<uint32_t> slots;
};

//! Whether a dictionary is worth trying: a sample of the first values must repeat enough.
template <class KEY, class GET>
bool DictionaryLikely(uint64_t n, GET &&get, uint64_t limit) {
	const uint64_t sample = n < 4096 ? n : 4096;
	DictionaryBuilder<KEY> probe(sample);
	uint32_t code;
	for (uint64_t i = 0; i < sample; i++) {
		probe.Insert(get(i), code);
	}
	return probe.values.size() <= limit && probe.values.size() * 2 <= sample;
}

//! Codes for all n values in `codes`, when a sample suggests repetition and the dictionary
//! stays within its limit; otherwise false with `codes` empty.
template <class KEY, class GET>
bool BuildDictionary(uint64_t n, uint64_t limit, GET &&get, DictionaryBuilder<KEY> &dict, std::vector<uint64_t> &codes) {
	codes.clear();
	if (!DictionaryLikely<KEY>(n, get, limit)) {
		return false;
	}
	codes.resize(n);
	uint32_t code;
	for (uint64_t i = 0; i < n; i++) {
		if (!dict.Insert(get(i), code)) {
			codes.clear();
			return false;
		}
		codes[i] = code;
	}
	return true;
}

} // namespace vtx
