// An exact, order-independent sum of doubles in a small fixed-size state: the aggregate state a
// query engine keeps per group. Most columns' values lie within a few powers of 2^32 of each
// other, so a window of kWindow 32-bit limbs (in int64 accumulators, as FloatAccumulator's)
// holds their sum exactly and follows the values as they arrive; a value outside it, or a
// window that has taken 2^30 additions, goes to a full FloatAccumulator allocated only then.
// The result is FloatAccumulator's: the exact sum, rounded once, whatever the order of additions
// and merges. Special values are counted apart, as zone statistics count them.
#pragma once
#include "../format/exact_sum.hpp"

#include <cstdint>

namespace vtx {
namespace compute {

struct CompactFloatSum {
	static constexpr uint32_t kWindow = 6;

	int64_t limb[kWindow];
	uint32_t offset;   //! the limb (of FloatAccumulator's 67) that limb[0] stands for
	uint32_t used;     //! limbs [0, used) of the window hold something; 0: the window is empty
	uint32_t additions; //! since the window was last emptied
	uint64_t values;   //! non-NULL values added, NaN and infinities included
	uint64_t nans, pos_inf, neg_inf;
	FloatAccumulator *spill; //! owned; null until needed

	//! The state as the engine allocates it (no constructor runs): call before use.
	void Initialize() {
		offset = used = additions = 0;
		values = nans = pos_inf = neg_inf = 0;
		spill = nullptr;
	}
	void Destroy() {
		delete spill;
		spill = nullptr;
	}
	void Add(double v) {
		values++;
		if (v != v) {
			nans++;
			return;
		}
		if (v == 0) {
			return;
		}
		if (v - v != 0) { // an infinity
			(v > 0 ? pos_inf : neg_inf)++;
			return;
		}
		const uint32_t low = FloatAccumulator::LowestLimb(v);
		if (used && low >= offset && low + 3 <= offset + kWindow && additions < FloatAccumulator::kCarryEvery - 1) {
			FloatAccumulator::AddTo(limb, offset, v);
			additions++;
			used = std::max(used, low + 3 - offset);
			return;
		}
		AddSlow(v, low);
	}
	//! Adds another state (which is left as it was).
	void Combine(const CompactFloatSum &o);
	//! The exact sum of the finite values (NaN and infinities counted apart).
	ExactSum Finite() const;

private:
	void AddSlow(double v, uint32_t low);
	//! Moves the window's sum into the spill accumulator and empties the window.
	void Flush();
	//! Makes the window cover limbs [from, from + kWindow) if what it holds fits there.
	bool Rebase(uint32_t from);
};

} // namespace compute
} // namespace vtx
