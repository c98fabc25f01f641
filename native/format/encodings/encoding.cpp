#include "encoding.hpp"

#include <stdexcept>

#include "bitpack.hpp"
#include "codecs.hpp"
#include "../domain.hpp"
#include "encoding_internal.hpp"
#include "fixed_width.hpp"
#include "../scratch.hpp"
#include "../utf8.hpp"
#include "../vector_loops.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace vtx {

const char *EncodingName(Encoding e) {
	switch (e) {
#define VTX_ENCODING_NAME(identifier, id, name, version, codec)                                                        \
	case Encoding::identifier: return name;
		VTX_ENCODINGS(VTX_ENCODING_NAME)
#undef VTX_ENCODING_NAME
	}
	return "unknown";
}

uint32_t EncodingVersion(Encoding e) {
	switch (e) {
#define VTX_ENCODING_VERSION(identifier, id, name, version, codec)                                                     \
	case Encoding::identifier: return version;
		VTX_ENCODINGS(VTX_ENCODING_VERSION)
#undef VTX_ENCODING_VERSION
	}
	return 1;
}

namespace encoding_internal {

void WritePacked(ByteWriter &out, const std::vector<uint64_t> &values, uint8_t bw) {
	WritePackedValues(out, values.size(), bw, [&](uint64_t i) { return values[i]; });
}

const uint8_t *ReadPackedRows(ByteReader &r, uint64_t n, uint8_t max_bw, uint8_t &bw, uint64_t b) {
	bw = r.U8();
	if (bw > max_bw) {
		throw FormatError("bit width " + std::to_string(bw) + " is out of range");
	}
	auto src = r.Take(PackedWords(n, bw) * 8);
	return src + b / 64 * bw * 8;
}

const uint8_t *ReadPacked(ByteReader &r, uint64_t n, uint8_t max_bw, uint8_t &bw) {
	return ReadPackedRows(r, n, max_bw, bw, 0);
}

//! Dictionary codes, unclamped (checked after, with LargestCode).
VTX_VECTOR_LOOP void UnpackCodes(const uint8_t *packed, uint64_t n, uint8_t bw, uint32_t *out) {
	UnpackTo<32>(packed, n, bw, out, [](uint64_t code) { return static_cast<uint32_t>(code); });
}

VTX_VECTOR_LOOP uint32_t LargestCode(const uint32_t *__restrict codes, uint64_t n) {
	uint32_t largest = 0;
	for (uint64_t i = 0; i < n; i++) {
		largest = std::max(largest, codes[i]);
	}
	return largest;
}

void ReadStrings(ByteReader &r, uint64_t n, bool utf8, StringRefs &out) {
	uint8_t bw;
	auto words = ReadPacked(r, n, 32, bw);
	auto total = r.Var();
	auto bytes = r.Take(total);
	out.resize(n);
	uint64_t pos = 0;
	bool bad = false;
	bool split = false;
	Unpack(words, n, bw, [&](uint64_t i, uint64_t len) {
		if (len > total - pos) {
			bad = true;
			len = 0;
		}
		split |= utf8 && !StartsCharacter(bytes + pos, len);
		out[i] = StringRef {reinterpret_cast<const char *>(bytes + pos), static_cast<uint32_t>(len)};
		pos += len;
	});
	if (bad || pos != total) {
		throw FormatError("string lengths do not match the string bytes");
	}
	if (utf8 && (split || !ValidUtf8(bytes, total))) {
		throw FormatError("a VARCHAR value is not valid UTF-8");
	}
}

} // namespace encoding_internal

namespace {

using namespace encoding_internal;

enum : uint8_t { ALL_VALID = 0, BITMAP = 1, ALL_NULL = 2 };

void WriteValidity(const ColumnInput &in, ByteWriter &out, uint64_t &valid_count) {
	valid_count = 0;
	if (!in.valid) {
		valid_count = in.count;
		out.U8(ALL_VALID);
		return;
	}
	// Eight validity bytes a step (BytesToBits), the tail one at a time.
	std::vector<uint64_t> bits((in.count + 63) / 64, 0);
	auto *packed = reinterpret_cast<uint8_t *>(bits.data()); // little-endian: byte k holds rows 8k..8k+7
	const uint8_t *valid = in.valid;
	uint64_t i = 0;
	for (; i + 8 <= in.count; i += 8) {
		uint64_t eight;
		std::memcpy(&eight, valid + i, 8);
		packed[i / 8] = static_cast<uint8_t>(BytesToBits(eight));
		valid_count += static_cast<uint64_t>(__builtin_popcountll(packed[i / 8]));
	}
	for (; i < in.count; i++) {
		if (valid[i]) {
			bits[i >> 6] |= uint64_t(1) << (i & 63);
			valid_count++;
		}
	}
	if (valid_count == in.count) {
		out.U8(ALL_VALID);
	} else if (valid_count == 0) {
		out.U8(ALL_NULL);
	} else {
		out.U8(BITMAP);
		out.Bytes(bits.data(), bits.size() * 8);
	}
}

//! The values of a chunk with at least one valid row: at(i) is row i's value, or for a NULL row
//! the valid value before it ("" before the first).
template <class AT>
Encoding EncodeStringValues(const ColumnInput &in, const AT &at, ByteWriter &out, ValueHint *hint) {
	// Where the first row is valid, every value written is a valid row's value (a NULL row repeats
	// the one before it), so the strings' range is found while they are copied. It points into
	// the input's strings, or the dictionary's views of them.
	StringRange *range = nullptr;
	if (hint && in.count && in.IsValid(0)) {
		range = &hint->range;
		hint->has_range = true;
	}
	const StringValues<AT> v {at, in.count, in, hint, range};
	return Choose<StringCandidates<AT>::template Of>(v, out).encoding;
}

Encoding EncodeStrings(const ColumnInput &in, ByteWriter &out, ValueHint *hint) {
	if (!in.valid) {
		// Read in place: a copy of every row's view was a pass over megabytes per segment.
		return EncodeStringValues(
		    in, [&](uint64_t i) { return std::string_view(in.strings[i].ptr, in.strings[i].len); }, out, hint);
	}
	auto &vals = Scratch<std::string_view>(0);
	vals.resize(in.count);
	std::string_view last;
	for (uint64_t i = 0; i < in.count; i++) {
		if (in.IsValid(i)) {
			last = std::string_view(in.strings[i].ptr, in.strings[i].len);
		}
		vals[i] = last;
	}
	return EncodeStringValues(in, [&](uint64_t i) { return vals[i]; }, out, hint);
}

void DecodeStrings(uint64_t n, ByteReader &r, Encoding enc, bool utf8, DecodedColumn &out) {
	bool decoded = false;
	switch (enc) {
#define VTX_ENCODING_DECODE_STRINGS(identifier, id, name, version, codec)                                              \
	case Encoding::identifier: decoded = codec::DecodeStrings(n, r, utf8, out); break;
		VTX_ENCODINGS(VTX_ENCODING_DECODE_STRINGS)
#undef VTX_ENCODING_DECODE_STRINGS
	}
	if (!decoded) {
		throw FormatError("encoding " + std::string(EncodingName(enc)) + " is not valid for strings");
	}
}

void ReadValidity(ByteReader &r, uint64_t n, DecodedColumn &out) {
	auto kind = r.U8();
	out.count = n;
	out.all_valid = kind == ALL_VALID;
	out.all_null = kind == ALL_NULL;
	out.validity.clear();
	if (kind == BITMAP) {
		auto words = (n + 63) / 64;
		out.validity.resize(words);
		if (words) {
			std::memcpy(out.validity.data(), r.Take(words * 8), words * 8);
		}
	} else if (kind == ALL_NULL) {
		out.validity.assign((n + 63) / 64, 0);
	} else if (kind != ALL_VALID) {
		throw FormatError("unknown validity kind " + std::to_string(kind));
	}
}

} // namespace

Encoding EncodeChunk(const ColumnInput &in, ByteWriter &out, ValueHint *hint) {
	if (hint) {
		*hint = ValueHint();
	}
	NoteHeapUse(in.count * std::max<size_t>(in.type.ByteWidth(), sizeof(StringRef)));
	ScratchLease lease;
	uint64_t valid_count;
	WriteValidity(in, out, valid_count);
	if (valid_count == 0 && in.count > 0) {
		return Encoding::CONSTANT;
	}
	if (in.type.IsString()) {
		return EncodeStrings(in, out, hint);
	}
	switch (in.type.ByteWidth()) {
	case 1: return EncodeFixed<uint8_t>(in, out, hint);
	case 2: return EncodeFixed<uint16_t>(in, out, hint);
	case 4: return EncodeFixed<uint32_t>(in, out, hint);
	case 8: return EncodeFixed<uint64_t>(in, out, hint);
	case 16: return EncodeFixed<uint128>(in, out, hint);
	}
	throw FormatError("cannot encode type " + in.type.ToString());
}

void DecodeChunk(const ColumnType &type, uint64_t rows, std::vector<uint8_t> &&body, DecodedColumn &out) {
	DecodeChunk(type, rows, ByteBuffer(body.begin(), body.end()), out);
}

namespace {

bool DeferFixedWidth(const ColumnType &type, uint64_t rows, ByteReader &r, Encoding enc, DecodedColumn &out) {
	switch (type.ByteWidth()) {
	case 2: return DeferFixed<uint16_t>(type, rows, r, enc, out);
	case 4: return DeferFixed<uint32_t>(type, rows, r, enc, out);
	case 8: return DeferFixed<uint64_t>(type, rows, r, enc, out);
	default: return false;
	}
}

} // namespace

void DecodeCodes(const DecodedColumn &chunk, uint64_t begin, uint64_t end, uint32_t *codes) {
	if (chunk.deferred.encoding != static_cast<uint8_t>(Encoding::DICTIONARY) || end > chunk.count || begin > end) {
		throw std::logic_error("vortex: dictionary codes of a chunk not left in its dictionary, or out of its range");
	}
	DictionaryCodec::EntryIndexes(chunk.deferred, begin, end, codes);
}

bool DeferredAsEntries(const DecodedColumn &chunk) {
	switch (static_cast<Encoding>(chunk.deferred.encoding)) {
#define VTX_ENCODING_ENTRIES(identifier, id, name, version, codec)                                                     \
	case Encoding::identifier: return codec::kEntries;
		VTX_ENCODINGS(VTX_ENCODING_ENTRIES)
#undef VTX_ENCODING_ENTRIES
	}
	return false;
}

void DecodeEntryIndexes(const DecodedColumn &chunk, uint64_t begin, uint64_t end, uint32_t *out) {
	if (!DeferredAsEntries(chunk) || end > chunk.count || begin > end) {
		throw std::logic_error("vortex: entry indexes of a chunk not left in its entries, or out of its range");
	}
	switch (static_cast<Encoding>(chunk.deferred.encoding)) {
#define VTX_ENCODING_ENTRY_INDEXES(identifier, id, name, version, codec)                                               \
	case Encoding::identifier: return codec::EntryIndexes(chunk.deferred, begin, end, out);
		VTX_ENCODINGS(VTX_ENCODING_ENTRY_INDEXES)
#undef VTX_ENCODING_ENTRY_INDEXES
	}
}

void DecodeRows(const ColumnType &type, const DecodedColumn &chunk, uint64_t begin, uint64_t end, uint8_t *out) {
	if (!chunk.deferred.encoding || begin % 64 != 0 || end > chunk.count || begin > end) {
		throw std::logic_error("vortex: rows decoded from a chunk whose values were not deferred, or out of its range");
	}
	switch (type.ByteWidth()) {
	case 2: return DecodeDeferred<uint16_t>(type, chunk, begin, end, out);
	case 4: return DecodeDeferred<uint32_t>(type, chunk, begin, end, out);
	case 8: return DecodeDeferred<uint64_t>(type, chunk, begin, end, out);
	default: throw std::logic_error("vortex: deferred values of type " + type.ToString());
	}
}

void DecodeRowsAt(const ColumnType &type, const DecodedColumn &chunk, uint64_t base, const uint32_t *rows, uint64_t n,
                  uint8_t *out) {
	if (!chunk.deferred.encoding || (n && base + rows[n - 1] >= chunk.count)) {
		throw std::logic_error("vortex: rows decoded from a chunk whose values were not deferred, or out of its range");
	}
	switch (type.ByteWidth()) {
	case 2: return DecodeDeferredAt<uint16_t>(type, chunk, base, rows, n, out);
	case 4: return DecodeDeferredAt<uint32_t>(type, chunk, base, rows, n, out);
	case 8: return DecodeDeferredAt<uint64_t>(type, chunk, base, rows, n, out);
	default: throw std::logic_error("vortex: deferred values of type " + type.ToString());
	}
}

void DecodeChunk(const ColumnType &type, uint64_t rows, ByteBuffer &&body, DecodedColumn &out, size_t start,
                 const RowRange *range, bool defer) {
	// The body, and the values it decodes to (strings as references).
	NoteHeapUse(body.size() + rows * std::max<size_t>(type.ByteWidth(), sizeof(StringRef)));
	out.Recycle();
	out.buffer = std::move(body);
	if (start > out.buffer.size()) {
		throw FormatError("segment is truncated");
	}
	ByteReader r(out.buffer.data() + start, out.buffer.size() - start, "segment");
	ReadValidity(r, rows, out);
	// Whether every value is known to lie in the type's domain without looking at each row:
	// from the encoding's parameters, or because an all-NULL chunk holds zeros (in every domain).
	bool domain_checked = false;
	if (out.all_null && rows > 0) {
		domain_checked = true;
		if (type.IsString()) {
			out.strings.assign(rows, StringRef {"", 0});
		} else {
			out.fixed.assign(rows * type.ByteWidth(), 0);
		}
	} else {
		auto enc = static_cast<Encoding>(r.U8());
		if (type.IsString()) {
			DecodeStrings(rows, r, enc, type.IsUtf8(), out);
		} else if (defer && !range && DeferFixedWidth(type, rows, r, enc, out)) {
			domain_checked = true; // DeferFixed defers only values it proved in the domain
		} else {
			switch (type.ByteWidth()) {
			case 1: domain_checked = DecodeFixed<uint8_t>(type, rows, r, enc, out, range); break;
			case 2: domain_checked = DecodeFixed<uint16_t>(type, rows, r, enc, out, range); break;
			case 4: domain_checked = DecodeFixed<uint32_t>(type, rows, r, enc, out, range); break;
			case 8: domain_checked = DecodeFixed<uint64_t>(type, rows, r, enc, out, range); break;
			case 16: domain_checked = DecodeFixed<uint128>(type, rows, r, enc, out, range); break;
			default: throw FormatError("cannot decode type " + type.ToString());
			}
		}
	}
	if (!r.AtEnd()) {
		throw FormatError("segment has " + std::to_string(r.Remaining()) + " unexpected trailing bytes");
	}
	// Every decoded row, NULL rows included (writers store a valid value there): DuckDB may look.
	// Only those: under a range the others hold whatever the buffer held. The decoded rows are
	// made explicit here ([0, rows) unless a range narrowed them), so there is one case to check.
	out.decoded_end = std::min<uint64_t>(out.decoded_end, rows);
	if (!type.IsString() && !domain_checked) {
		CheckDomain(type, out.Fixed() + out.decoded_begin * type.ByteWidth(), out.decoded_end - out.decoded_begin);
	}
}

Encoding PeekEncoding(const ColumnType &type, uint64_t rows, const ByteBuffer &body) {
	ByteReader r(body.data(), body.size(), "segment");
	DecodedColumn scratch;
	ReadValidity(r, rows, scratch);
	if (scratch.all_null && rows > 0) {
		return Encoding::CONSTANT;
	}
	(void)type;
	return static_cast<Encoding>(r.U8());
}

} // namespace vtx
