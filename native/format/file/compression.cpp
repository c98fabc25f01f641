#include "compression.hpp"

#include <cstring>

#include "../error.hpp"
#include "lz4/lz4.hpp"
#include "../scratch.hpp"
#include "zstd.h"

#include <climits>
#include <memory>

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

namespace {

//! What compressing needs, kept per thread between segments (scratch.hpp): ZSTD_compress makes
//! and initialises a context of its own on every call, and a bound-sized std::vector would
//! zero-fill megabytes that the compressor then overwrites, touching every page of a segment's
//! bound where the output needs a third of them.
class CompressScratch : public ScratchSlotBase {
public:
	~CompressScratch() override {
		Unregister();
		Release();
	}
	size_t Bytes() const override {
		return capacity + (context ? duckdb_zstd::ZSTD_sizeof_CCtx(context) : 0);
	}
	void Release() override {
		buffer.reset();
		capacity = 0;
		if (context) {
			duckdb_zstd::ZSTD_freeCCtx(context);
			context = nullptr;
		}
	}
	uint8_t *Buffer(size_t n) {
		if (n > capacity) {
			buffer.reset();
			buffer.reset(new uint8_t[n]); // uninitialised on purpose
			capacity = n;
		}
		return buffer.get();
	}
	duckdb_zstd::ZSTD_CCtx *Context() {
		if (!context) {
			context = duckdb_zstd::ZSTD_createCCtx();
		}
		return context;
	}

private:
	std::unique_ptr<uint8_t[]> buffer;
	size_t capacity = 0;
	duckdb_zstd::ZSTD_CCtx *context = nullptr;
};

} // namespace

bool Compress(Codec codec, int level, const std::vector<uint8_t> &in, std::vector<uint8_t> &out) {
	if (codec == Codec::NONE || in.size() < 64 || in.size() > INT_MAX) {
		return false;
	}
	ScratchLease lease;
	thread_local CompressScratch scratch;
	size_t n = 0;
	if (codec == Codec::ZSTD) {
		auto context = scratch.Context();
		if (!context) {
			return false; // out of memory for a context: stored uncompressed
		}
		const size_t bound = duckdb_zstd::ZSTD_compressBound(in.size());
		auto buf = scratch.Buffer(bound);
		n = duckdb_zstd::ZSTD_compressCCtx(context, buf, bound, in.data(), in.size(), level);
		if (duckdb_zstd::ZSTD_isError(n)) {
			return false;
		}
	} else {
		const int bound = duckdb_lz4::LZ4_compressBound(static_cast<int>(in.size()));
		int r = duckdb_lz4::LZ4_compress_default(reinterpret_cast<const char *>(in.data()),
		                                         reinterpret_cast<char *>(scratch.Buffer(static_cast<size_t>(bound))),
		                                         static_cast<int>(in.size()), bound);
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
	auto buf = scratch.Buffer(0);
	out.assign(buf, buf + n);
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
