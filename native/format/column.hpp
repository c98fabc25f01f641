// In-memory forms of one column chunk (one column of one zone): what the writer is
// given, and what the reader decodes to.
#pragma once
#include "buffer_memory.hpp"
#include "types.hpp"

#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace vtx {

struct StringRef {
	const char *ptr;
	uint32_t len;
};

//! Leaves elements uninitialised on resize: decoded buffers are always overwritten, and
//! zeroing them first costs as much as decoding. Large blocks come from the buffer cache
//! (buffer_memory.hpp).
template <class T>
struct DefaultInit : std::allocator<T> {
	template <class U>
	struct rebind {
		using other = DefaultInit<U>;
	};
	DefaultInit() = default;
	template <class U>
	DefaultInit(const DefaultInit<U> &) noexcept {
	}
	T *allocate(size_t n) {
		if (n > size_t(-1) / sizeof(T)) {
			throw std::bad_alloc();
		}
		return static_cast<T *>(AllocateBuffer(n * sizeof(T)));
	}
	void deallocate(T *p, size_t n) noexcept {
		ReleaseBuffer(p, n * sizeof(T));
	}
	template <class U>
	void construct(U *p) noexcept {
		::new (static_cast<void *>(p)) U;
	}
	template <class U, class... ARGS>
	void construct(U *p, ARGS &&...args) {
		::new (static_cast<void *>(p)) U(std::forward<ARGS>(args)...);
	}
};

using ByteBuffer = std::vector<uint8_t, DefaultInit<uint8_t>>;
using StringRefs = std::vector<StringRef, DefaultInit<StringRef>>;

//! A chunk to be written. Values at null rows are ignored.
struct ColumnInput {
	ColumnType type;
	uint64_t count = 0;
	const uint8_t *valid = nullptr;     //! one byte per row, nonzero = valid; nullptr = all valid
	const uint8_t *fixed = nullptr;     //! count * ByteWidth() bytes, fixed-width kinds
	const StringRef *strings = nullptr; //! count entries, string kinds
	//! Nested types: this node's stream is the values above, typed type.Storage() (validity,
	//! tags, lengths or codes); its children's streams follow, one per child of the type.
	std::vector<ColumnInput> children;

	bool IsValid(uint64_t i) const {
		return !valid || valid[i];
	}
};

//! Which streams of a nested column to decode: with `all` false, only the STRUCT fields whose
//! `children[i].included` is set (and, below them, what their own selection says). A field left
//! out decodes as all NULL.
struct StreamSelection {
	bool all = true;
	bool included = true;
	std::vector<StreamSelection> children;
};

//! Rows [begin, end) of a chunk: all a reader needs decoded, when it needs no more.
struct RowRange {
	uint64_t begin = 0;
	uint64_t end = 0;
};

//! Fixed-width values left packed in `buffer` until a consumer asks for rows (DecodeRows): decoded
//! a vector at a time into a buffer the consumer reuses, they are written and read while in the
//! CPU's cache, where a whole zone's values (a megabyte a column) go out to memory and back.
struct DeferredValues {
	uint8_t encoding = 0; //! 0: nothing deferred; else the Encoding of the values
	uint8_t bw = 0;
	const uint8_t *words = nullptr; //! the packed words, in `buffer`; RLE: the runs' ends (uint32 each)
	uint64_t ref = 0;               //! FOR_BITPACK: the frame of reference
	const uint8_t *entries = nullptr; //! DICTIONARY: the dictionary's values, in `buffer`; RLE: the runs'
	uint64_t size = 0;                //! DICTIONARY: its number of values; RLE: of runs
};

//! A decoded chunk. Strings point into `buffer`, which the chunk owns.
struct DecodedColumn {
	uint64_t count = 0;
	//! The rows whose values were decoded: all of them, unless the reader was given a RowRange
	//! and the encoding decodes by blocks (then values outside are unspecified; validity and
	//! `count` still cover every row).
	uint64_t decoded_begin = 0;
	uint64_t decoded_end = ~uint64_t(0);
	bool all_valid = true;
	bool all_null = false;
	std::vector<uint64_t> validity; //! LSB-first bitmap, 1 = valid (DuckDB's layout); empty when all valid
	ByteBuffer fixed; //! count * width, when the values had to be decoded
	//! Plain values used where they lie in `buffer` (aligned to min(width, 8)); null when in `fixed`.
	const uint8_t *values = nullptr;
	StringRefs strings;
	//! Dictionary-encoded strings are kept as their dictionary and per-row codes (< dictionary.size()),
	//! so that a consumer can hand them on as a dictionary; `strings` is then empty (see Strings()).
	StringRefs dictionary;
	std::vector<uint32_t, DefaultInit<uint32_t>> codes;
	ByteBuffer buffer;
	//! Whatever a consumer derives from this chunk once and reuses (e.g. a DuckDB dictionary vector).
	std::shared_ptr<void> consumer_cache;
	//! Set where the reader was asked to defer and could: no values are decoded here then
	//! (decoded_begin = decoded_end = 0, `fixed` empty), only by DecodeRows.
	DeferredValues deferred;
	//! Nested types: the children's decoded streams, one per child of the type.
	std::vector<DecodedColumn> children;
	//! LIST and MAP: count + 1 offsets into the children's values (a NULL list is empty).
	std::vector<uint64_t> list_offsets;

	//! Empties the chunk for another decode into it, keeping the memory of its zone-sized
	//! buffers: pages written afresh each zone cost a fault and the kernel's zeroing each.
	void Recycle() {
		ByteBuffer keep_fixed = std::move(fixed), keep_buffer = std::move(buffer);
		auto keep_codes = std::move(codes);
		auto keep_strings = std::move(strings);
		*this = DecodedColumn();
		keep_fixed.clear();
		keep_buffer.clear();
		keep_codes.clear();
		keep_strings.clear();
		fixed = std::move(keep_fixed);
		buffer = std::move(keep_buffer);
		codes = std::move(keep_codes);
		strings = std::move(keep_strings);
	}

	//! The count * width bytes of fixed-width values.
	const uint8_t *Fixed() const {
		return values ? values : fixed.data();
	}

	bool IsValid(uint64_t i) const {
		return all_valid || ((validity[i >> 6] >> (i & 63)) & 1);
	}

	//! Row i's string (string kinds).
	const StringRef &StringAt(uint64_t i) const {
		return codes.empty() ? strings[i] : dictionary[codes[i]];
	}

	//! All `count` strings as one array: `strings` itself, or for a dictionary chunk the rows
	//! materialised into `scratch`.
	const StringRef *Strings(StringRefs &scratch) const {
		return Strings(scratch, 0, count);
	}
	//! Rows [begin, end) only: the result's first entry is row `begin`.
	const StringRef *Strings(StringRefs &scratch, uint64_t begin, uint64_t end) const {
		if (codes.empty()) {
			return strings.data() + begin;
		}
		scratch.resize(end - begin);
		for (uint64_t i = begin; i < end; i++) {
			scratch[i - begin] = dictionary[codes[i]];
		}
		return scratch.data();
	}
};

} // namespace vtx
