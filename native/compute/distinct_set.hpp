// The distinct values of a column, as count(DISTINCT x) counts them: raw value bytes compared
// bytewise (the query engine's equality for the integer, decimal, temporal and string types the
// DuckDB layer admits; NULL is never added). Values of at most 8 bytes live in an open-addressing
// table of 64-bit words, the others in an arena indexed by an open-addressing table of hashes
// (no allocation per value). A dictionary-encoded chunk adds each entry its rows use once.
#pragma once
#include "../format/column.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace vtx {
namespace compute {

class DistinctSet {
public:
	explicit DistinctSet(const ColumnType &type);

	void Insert(const std::string &raw);
	//! The valid rows of a column's values in `in` (dense or with `in.valid`).
	void InsertAll(const ColumnInput &in);
	//! Rows [begin, end) of a decoded chunk, the valid ones where `selected` (if given) is nonzero.
	void InsertDecoded(const DecodedColumn &chunk, const uint8_t *selected, uint64_t begin, uint64_t end);
	void Merge(const DistinctSet &other);
	uint64_t Size() const {
		return words_used + (has_zero ? 1 : 0) + strings_used;
	}
	//! Heap bytes held, for budgets.
	uint64_t Bytes() const;

private:
	void InsertWord(uint64_t w);
	//! Words in bulk, their slots prefetched a few words ahead: the table outgrows the caches
	//! where there are many distinct values, and each insert would wait on memory.
	void InsertWords(const uint64_t *words, size_t n);
	//! An empty table sized for `n` words at once, instead of doubling its way there.
	void Reserve(uint64_t n);
	void Grow();
	//! Every word of another open-addressing table (its empty slots skipped).
	void InsertTable(const std::vector<uint64_t> &table);
	uint64_t WordOf(const uint8_t *p) const;
	//! Strings (and values wider than 8 bytes) by their bytes.
	void InsertBytes(const char *p, uint32_t len);
	void InsertHashed(uint64_t hash, const char *p, uint32_t len);
	void GrowStrings();
	//! The dictionary entries the valid (and `selected`) rows [begin, end) use, each once.
	void InsertDictionary(const DecodedColumn &chunk, const uint8_t *selected, uint64_t begin, uint64_t end);

	ColumnType type;
	uint32_t width; //! 1..8: words; else strings
	//! Open addressing over words; 0 marks an empty slot, so the value 0 is kept apart.
	std::vector<uint64_t> slots;
	uint64_t words_used = 0;
	bool has_zero = false;
	//! A string slot: `hash` 0 marks an empty slot (hashes are made odd); the bytes at `offset` in `arena`.
	struct StringSlot {
		uint64_t hash;
		uint64_t offset;
		uint32_t len;
	};
	std::vector<StringSlot> string_slots;
	uint64_t strings_used = 0;
	std::vector<char> arena;
};

} // namespace compute
} // namespace vtx
