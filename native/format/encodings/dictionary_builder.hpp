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
	//! The table starts small and doubles as values arrive (at most half full): sized for the limit
	//! up front, it was hundreds of KiB to clear per segment, most often for a handful of values or
	//! for a dictionary that the first sample already ruled out.
	explicit DictionaryBuilder(uint64_t limit) : limit(limit) {
	}

	//! Code of `key`, inserting it if new; false when the dictionary is full.
	bool Insert(const KEY &key, uint32_t &code) {
		const uint64_t h = KeyHash<KEY>()(key);
		uint64_t i = h & mask;
		while (!slots.empty()) {
			uint32_t s = slots[i];
			if (s == kEmpty) {
				break;
			}
			if (values[s] == key) {
				code = s;
				return true;
			}
			i = (i + 1) & mask;
		}
		if (values.size() >= limit) {
			return false;
		}
		if ((values.size() + 1) * 2 > slots.size()) {
			Grow();
			for (i = h & mask; slots[i] != kEmpty; i = (i + 1) & mask) {
			}
		}
		code = static_cast<uint32_t>(values.size());
		slots[i] = code;
		values.push_back(key);
		return true;
	}

	std::vector<KEY> values;

private:
	void Grow() {
		const uint64_t cap = slots.empty() ? 64 : slots.size() * 2;
		slots.assign(cap, kEmpty);
		mask = cap - 1;
		for (uint32_t code = 0; code < values.size(); code++) {
			uint64_t i = KeyHash<KEY>()(values[code]) & mask;
			while (slots[i] != kEmpty) {
				i = (i + 1) & mask;
			}
			slots[i] = code;
		}
	}

	static constexpr uint32_t kEmpty = UINT32_MAX;
	uint64_t limit;
	uint64_t mask = 0;
	std::vector<uint32_t> slots;
};

//! Chao1's estimate of the distinct values among all rows from a sample's codes: the values seen
//! once and twice say how many were not seen at all. A sample of 4096 rows from 5,000 distinct
//! URLs holds about 2,800 of them (too many for "at most half distinct"); this says about 5,000.
inline double EstimatedDistinct(const std::vector<uint64_t> &codes, uint64_t sample, size_t distinct) {
	std::vector<uint32_t> seen(distinct, 0);
	for (uint64_t i = 0; i < sample; i++) {
		seen[codes[i]]++;
	}
	double once = 0, twice = 0;
	for (auto c : seen) {
		once += c == 1;
		twice += c == 2;
	}
	return static_cast<double>(distinct) + once * (once - 1) / (2 * (twice + 1));
}

//! Codes for all n values in `codes`, when the first values (a sample of 4096) repeat enough (at
//! most half of them distinct, or an estimated at most one in 8 of all rows distinct) and `dict`
//! stays within its limit; otherwise false with `codes` empty.
template <class KEY, class GET>
bool BuildDictionary(uint64_t n, GET &&get, DictionaryBuilder<KEY> &dict, std::vector<uint64_t> &codes) {
	const uint64_t sample = n < 4096 ? n : 4096;
	codes.resize(sample);
	uint32_t code;
	uint64_t i = 0;
	const auto fill = [&](uint64_t end) {
		for (; i < end; i++) {
			if (!dict.Insert(get(i), code)) {
				return false;
			}
			codes[i] = code;
		}
		return true;
	};
	// The sample is coded first (its work is kept), and decides whether the rest is tried.
	bool ok = fill(sample);
	if (ok && dict.values.size() * 2 > sample) {
		ok = sample < n && EstimatedDistinct(codes, sample, dict.values.size()) * 8 <= static_cast<double>(n);
	}
	if (ok) {
		codes.resize(n);
		ok = fill(n);
	}
	if (!ok) {
		codes.clear();
	}
	return ok;
}

} // namespace vtx
