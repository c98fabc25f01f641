// Every encoding's own file, and the choice among the codecs that the rows of VTX_ENCODINGS
// (encoding.hpp) name, for fixed-width values (fixed_width_impl.hpp) and strings (encoding.cpp).
#pragma once
#include "alp.hpp"
#include "constant.hpp"
#include "dictionary.hpp"
#include "frame.hpp"
#include "plain.hpp"
#include "runs.hpp"

namespace vtx {
namespace encoding_internal {

//! The encoding chosen for a chunk's values, and whether it was taken at once.
struct Chosen {
	Encoding encoding = Encoding::PLAIN;
	bool at_once = false;
};

//! Each encoding's candidate, CHOICE<its codec>, is offered the values in its row's order; the one
//! taken at once, or else the smallest (the first of equal sizes), writes its id and its payload.
//! The candidates are objects of this frame, as the one chosen writes what it prepared (ALP's
//! encoded values, a dictionary's values and codes).
template <template <class> class CHOICE, class VALUES>
Chosen Choose(const VALUES &v, ByteWriter &out) {
	Offer best;
	Chosen chosen;
	const auto consider = [&](auto &candidate, Encoding id) {
		if (chosen.at_once) {
			return;
		}
		const Offer offer = candidate.Make(v, best.size);
		if (offer.at_once || offer.size < best.size) {
			best = offer;
			chosen = Chosen {id, offer.at_once};
		}
	};
#define VTX_ENCODING_OFFER(identifier, id, name, version, codec)                                                       \
	CHOICE<codec> identifier##_choice;                                                                                 \
	consider(identifier##_choice, Encoding::identifier);
	VTX_ENCODINGS(VTX_ENCODING_OFFER)
#undef VTX_ENCODING_OFFER
	out.U8(static_cast<uint8_t>(chosen.encoding));
	switch (chosen.encoding) {
#define VTX_ENCODING_WRITE(identifier, id, name, version, codec)                                                       \
	case Encoding::identifier: identifier##_choice.Write(v, out); break;
		VTX_ENCODINGS(VTX_ENCODING_WRITE)
#undef VTX_ENCODING_WRITE
	}
	return chosen;
}

//! Choose's candidates for fixed-width values of storage type U, and for strings read by AT.
template <class U>
struct FixedCandidates {
	template <class CODEC>
	using Of = typename CODEC::template Choice<U>;
};
template <class AT>
struct StringCandidates {
	template <class CODEC>
	using Of = typename CODEC::template StringChoice<AT>;
};

} // namespace encoding_internal
} // namespace vtx
