#include "compact_float_sum.hpp"

#include <algorithm>
#include <cstring>

namespace vtx {
namespace compute {

void CompactFloatSum::Flush() {
	if (!used) {
		return;
	}
	if (!spill) {
		spill = new FloatAccumulator();
	}
	// At most kCarryEvery - 1 additions of values below 2^32 per limb: AddLimbs' precondition.
	spill->AddLimbs(limb, used, offset, additions);
	used = additions = 0;
}

bool CompactFloatSum::Rebase(uint32_t from) {
	from = std::min<uint32_t>(from, FloatAccumulator::kLimbs - kWindow);
	if (!used) {
		offset = from;
		std::memset(limb, 0, sizeof(limb));
		return true;
	}
	if (from > offset || offset + used > from + kWindow) {
		return false;
	}
	const uint32_t shift = offset - from;
	if (shift) {
		std::memmove(limb + shift, limb, used * sizeof(int64_t));
		std::memset(limb, 0, shift * sizeof(int64_t));
		used += shift;
	}
	offset = from;
	return true;
}

void CompactFloatSum::AddSlow(double v, uint32_t low) {
	if (additions >= FloatAccumulator::kCarryEvery - 1) {
		Flush();
	}
	// A window that would hold both what it holds and v: start it at the lower of the two (the
	// lowest limbs leave room above for values up to 2^(32 * (kWindow - 3)) times larger).
	const uint32_t from = used ? std::min(offset, low) : (low > 0 ? low - 1 : 0);
	const uint32_t top = std::max(used ? offset + used : 0, low + 3);
	if (top <= std::min<uint32_t>(from + kWindow, FloatAccumulator::kLimbs) && Rebase(from) && low >= offset &&
	    low + 3 <= offset + kWindow) {
		FloatAccumulator::AddTo(limb, offset, v);
		additions++;
		used = std::max(used, low + 3 - offset);
		return;
	}
	if (!spill) {
		spill = new FloatAccumulator();
	}
	spill->Add(v);
}

void CompactFloatSum::Combine(const CompactFloatSum &o) {
	values += o.values;
	nans += o.nans;
	pos_inf += o.pos_inf;
	neg_inf += o.neg_inf;
	if (o.spill) {
		if (!spill) {
			spill = new FloatAccumulator();
		}
		spill->Add(*o.spill);
	}
	if (!o.used) {
		return;
	}
	if (additions + o.additions < FloatAccumulator::kCarryEvery - 1) {
		const uint32_t from = used ? std::min(offset, o.offset) : o.offset;
		const uint32_t top = std::max(used ? offset + used : 0, o.offset + o.used);
		if (top <= from + kWindow && Rebase(from)) {
			for (uint32_t i = 0; i < o.used; i++) {
				limb[o.offset - offset + i] += o.limb[i];
			}
			used = std::max(used, o.offset + o.used - offset);
			additions += o.additions;
			return;
		}
	}
	if (!spill) {
		spill = new FloatAccumulator();
	}
	spill->AddLimbs(o.limb, o.used, o.offset, o.additions);
}

ExactSum CompactFloatSum::Finite() const {
	FloatAccumulator total;
	if (spill) {
		total.Add(*spill);
	}
	if (used) {
		total.AddLimbs(limb, used, offset, additions);
	}
	return total.Sum();
}

} // namespace compute
} // namespace vtx
