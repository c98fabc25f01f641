// Constant (encoding 1): one value for every row. Taken at once wherever it applies: nothing is
// smaller, and the candidates after it are not tried.
#pragma once
#include "encoding_internal.hpp"
#include "../utf8.hpp"

#include <string_view>
#include <vector>

namespace vtx {
namespace encoding_internal {

struct ConstantCodec : CodecDefaults {
	template <class U>
	struct Choice {
		Offer Make(const FixedValues<U> &v, uint64_t) {
			return v.runs <= 1 ? Offer {sizeof(U), true} : Offer {};
		}
		void Write(const FixedValues<U> &v, ByteWriter &out) {
			const U value = v.n ? v.vals[0] : U(0);
			out.Put(value);
			if (v.n) {
				HintFromDictionary(true, std::vector<U> {value}, RawValue<U>, v.hint);
			}
		}
	};

	template <class U>
	static bool Decode(const ColumnType &type, uint64_t n, ByteReader &r, DecodedColumn &out, const RowRange *) {
		U *dst = DecodedRows<U>(out, n);
		const auto value = LoadValue<U>(r.Take(sizeof(U)));
		for (uint64_t i = 0; i < n; i++) {
			dst[i] = value;
		}
		return Within(type, &value, 1);
	}

	template <class AT>
	struct StringChoice {
		Offer Make(const StringValues<AT> &v, uint64_t) {
			const std::string_view first = v.n ? v.at(0) : std::string_view();
			for (uint64_t i = 1; i < v.n; i++) {
				if (v.at(i) != first) {
					return Offer {};
				}
			}
			return Offer {first.size(), true};
		}
		void Write(const StringValues<AT> &v, ByteWriter &out) {
			const std::string_view first = v.n ? v.at(0) : std::string_view();
			out.Var(first.size());
			if (v.n) {
				out.Bytes(first.data(), first.size());
				HintFromDictionary(true, std::vector<std::string_view> {first}, RawString, v.hint);
				if (v.range) {
					v.range->Add(StringRef {first.data(), static_cast<uint32_t>(first.size())});
				}
			}
		}
	};
	static bool DecodeStrings(uint64_t n, ByteReader &r, bool utf8, DecodedColumn &out) {
		auto len = r.Var();
		if (len > UINT32_MAX) {
			throw FormatError("string is too long");
		}
		auto p = r.Take(len);
		if (utf8 && !ValidUtf8(p, len)) {
			throw FormatError("a VARCHAR value is not valid UTF-8");
		}
		out.strings.assign(n, StringRef {reinterpret_cast<const char *>(p), static_cast<uint32_t>(len)});
		return true;
	}
};

} // namespace encoding_internal
} // namespace vtx
