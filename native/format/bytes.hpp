// Little-endian byte buffers. Every read is bounds-checked because readers see
// hostile files: running off the end is a FormatError, never undefined behaviour.
#pragma once
#include "error.hpp"
#include "types.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace vtx {

class ByteWriter {
public:
	std::vector<uint8_t> data;

	void Bytes(const void *p, size_t n) {
		auto b = static_cast<const uint8_t *>(p);
		data.insert(data.end(), b, b + n);
	}
	template <class T>
	void Put(T v) {
		Bytes(&v, sizeof(T));
	}
	void U8(uint8_t v) {
		Put(v);
	}
	void U32(uint32_t v) {
		Put(v);
	}
	void U64(uint64_t v) {
		Put(v);
	}
	//! LEB128, for counts and lengths that are usually small.
	void Var(uint64_t v) {
		while (v >= 0x80) {
			U8(static_cast<uint8_t>(v) | 0x80);
			v >>= 7;
		}
		U8(static_cast<uint8_t>(v));
	}
	void Str(const std::string &s) {
		Var(s.size());
		Bytes(s.data(), s.size());
	}
	size_t Size() const {
		return data.size();
	}
};

class ByteReader {
public:
	ByteReader(const uint8_t *p, size_t n, const char *what = "data") : p(p), end(p + n), what(what) {
	}

	const uint8_t *Take(size_t n) {
		if (n > Remaining()) {
			throw FormatError(std::string(what) + " is truncated (needs " + std::to_string(n) + " more bytes, " +
			                  std::to_string(Remaining()) + " left)");
		}
		auto r = p;
		p += n;
		return r;
	}
	template <class T>
	T Get() {
		T v;
		std::memcpy(&v, Take(sizeof(T)), sizeof(T));
		return v;
	}
	uint8_t U8() {
		return Get<uint8_t>();
	}
	uint32_t U32() {
		return Get<uint32_t>();
	}
	uint64_t U64() {
		return Get<uint64_t>();
	}
	uint64_t Var() {
		uint64_t v = 0;
		for (int shift = 0; shift < 64; shift += 7) {
			auto b = U8();
			v |= uint64_t(b & 0x7f) << shift;
			if (!(b & 0x80)) {
				return v;
			}
		}
		throw FormatError(std::string(what) + " has a malformed variable-length integer");
	}
	//! A count that must fit what is left (each item takes at least `min_item_bytes`).
	uint64_t Count(size_t min_item_bytes = 1) {
		auto n = Var();
		if (min_item_bytes > 0 && n > Remaining() / min_item_bytes) {
			throw FormatError(std::string(what) + " declares " + std::to_string(n) + " items but only " +
			                  std::to_string(Remaining()) + " bytes remain");
		}
		return n;
	}
	std::string Str() {
		auto n = Count(1);
		auto b = Take(n);
		return std::string(reinterpret_cast<const char *>(b), n);
	}
	size_t Remaining() const {
		return static_cast<size_t>(end - p);
	}
	bool AtEnd() const {
		return p == end;
	}
	const uint8_t *Position() const {
		return p;
	}

private:
	const uint8_t *p;
	const uint8_t *end;
	const char *what;
};

} // namespace vtx
