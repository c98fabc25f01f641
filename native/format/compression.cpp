#include "compression.hpp"

#include <cstring>

#include "error.hpp"
#include "lz4/lz4.hpp"
#include "scratch.hpp"
#include "zstd.h"

#include <climits>

namespace vtx {

bool ParseCodec(const std::string &name, Codec &out) {
	if (name == "none" || name == "uncompressed") {
		out = Codec::NONE;
	} else if (name == "zstd") {
		out = Codec::ZSTD;
	} else if (name == "lz4") {
		out = Codec::LZ4;
	} else {
		return false;
	}
	return true;
}

const char *CodecName(Codec c) {
	switch (c) {
	case Codec::NONE: return "none";
	case Codec::ZSTD: return "zstd";
	case Codec::LZ4: return "lz4";
	}
	return "unknown";
}

bool Compress(Codec codec, int level, const std::vector<uint8_t> &in, std::vector<uint8_t> &out) {
	if (codec == Codec::NONE || in.size() < 64 || in.size() > INT_MAX) {
		return false;
	}
	// Reused: a fresh bound-sized buffer per call page-faults. Released when no query needs it.
	ScratchLease lease;
	thread_local ScratchSlot<std::vector<uint8_t>> slot;
	auto &buf = slot.value;
	size_t n = 0;
	if (codec == Codec::ZSTD) {
		buf.resize(duckdb_zstd::ZSTD_compressBound(in.size()));
		n = duckdb_zstd::ZSTD_compress(buf.data(), buf.size(), in.data(), in.size(), level);
		if (duckdb_zstd::ZSTD_isError(n)) {
			return false;
		}
	} else {
		buf.resize(static_cast<size_t>(duckdb_lz4::LZ4_compressBound(static_cast<int>(in.size()))));
		int r = duckdb_lz4::LZ4_compress_default(reinterpret_cast<const char *>(in.data()),
		                                         reinterpret_cast<char *>(buf.data()), static_cast<int>(in.size()),
		                                         static_cast<int>(buf.size()));
		if (r <= 0) {
			return false;
		}
		n = static_cast<size_t>(r);
	}
	// Keep compression only where it pays for its decoding cost: a quarter of the bytes at least.
	// At an eighth, TPC-H's l_discount was zstd-compressed for a 13% saving, and decompressing
	// it was 4.5% of q06's time, for half a megabyte in 146.
	if (n > in.size() - in.size() / 4) {
		return false;
	}
	out.assign(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n));
	return true;
}

void CheckDecompressedSize(Codec codec, const uint8_t *in, size_t n, size_t raw_size) {
	switch (codec) {
	case Codec::NONE:
		if (n != raw_size) {
			throw FormatError("segment size does not match its declared size");
		}
		return;
	case Codec::ZSTD: {
		// Our writer's frames (ZSTD_compress) always record their content size.
		auto declared = duckdb_zstd::ZSTD_getFrameContentSize(in, n);
		if (declared != raw_size) {
			throw FormatError("zstd segment does not declare its size of " + std::to_string(raw_size) + " bytes");
		}
		return;
	}
	case Codec::LZ4:
		// An lz4 block expands at most 255-fold (one length byte per 255 bytes of match).
		if (raw_size > n * 255 + 64) {
			throw FormatError("lz4 segment cannot decompress to its declared size");
		}
		return;
	}
	throw FormatError("unknown compression codec " + std::to_string(static_cast<int>(codec)));
}

void Decompress(Codec codec, const uint8_t *in, size_t n, uint8_t *out, size_t raw_size) {
	switch (codec) {
	case Codec::NONE:
		if (n != raw_size) {
			throw FormatError("segment size does not match its declared size");
		}
		std::memcpy(out, in, n);
		return;
	case Codec::ZSTD: {
		auto r = duckdb_zstd::ZSTD_decompress(out, raw_size, in, n);
		if (duckdb_zstd::ZSTD_isError(r) || r != raw_size) {
			throw FormatError("zstd segment does not decompress to its declared size");
		}
		return;
	}
	case Codec::LZ4: {
		if (n > INT_MAX || raw_size > INT_MAX) {
			throw FormatError("lz4 segment is too large");
		}
		int r = duckdb_lz4::LZ4_decompress_safe(reinterpret_cast<const char *>(in), reinterpret_cast<char *>(out),
		                                        static_cast<int>(n), static_cast<int>(raw_size));
		if (r < 0 || static_cast<size_t>(r) != raw_size) {
			throw FormatError("lz4 segment does not decompress to its declared size");
		}
		return;
	}
	}
	throw FormatError("unknown compression codec " + std::to_string(static_cast<int>(codec)));
}

} // namespace vtx
