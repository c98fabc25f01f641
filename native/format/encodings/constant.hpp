// Constant (encoding 1): one value for every row. Taken at once wherever it applies: nothing is
// smaller, and the candidates after it are not tried.
#pragma once
#include "encoding_internal.hpp"

#include <vector>

namespace vtx {
namespace encoding_internal {

struct ConstantCodec : KeptUnpacked {
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
};

} // namespace encoding_internal
} // namespace vtx
