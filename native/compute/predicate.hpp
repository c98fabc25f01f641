// Predicates over one column, as a scan receives them from a query engine: comparisons with
// a constant, IS [NOT] NULL, IN lists, AND/OR. Two operations: classify a zone from its
// statistics (no row / some rows / every row matches), and evaluate the predicate on a decoded
// chunk. Semantics are the query engine's (DuckDB's): NULL never satisfies a comparison or IN,
// NaN equals NaN and is greater than every other number, -0.0 equals 0.0, strings compare
// bytewise (unsigned bytes, then length). No DuckDB types here.
#pragma once
#include "../format/bytes.hpp"
#include "../format/column.hpp"
#include "../format/stats/stats.hpp"

#include <string>
#include <vector>

namespace vtx {
namespace compute {

enum class CompareOp : uint8_t { EQ, NE, LT, LE, GT, GE };

struct Predicate {
	enum class Kind : uint8_t { ALWAYS_TRUE, COMPARE, IS_NULL, IS_NOT_NULL, IN, AND, OR };
	Kind kind = Kind::ALWAYS_TRUE;
	CompareOp op = CompareOp::EQ;
	std::string value;               //! COMPARE: raw value bytes in the column's storage
	std::vector<std::string> values; //! IN: raw value bytes
	std::vector<Predicate> children; //! AND / OR

	static Predicate True() {
		return Predicate();
	}
	static Predicate Compare(CompareOp op, std::string value) {
		Predicate p;
		p.kind = Kind::COMPARE;
		p.op = op;
		p.value = std::move(value);
		return p;
	}
	bool IsTrue() const {
		return kind == Kind::ALWAYS_TRUE;
	}
	std::string ToString() const;
	//! For plans that carry predicates (a serialized DuckDB plan).
	void Serialize(ByteWriter &w) const;
	static Predicate Deserialize(ByteReader &r);
};

bool operator==(const Predicate &a, const Predicate &b);
inline bool operator!=(const Predicate &a, const Predicate &b) {
	return !(a == b);
}

enum class ZoneMatch : uint8_t { NONE, SOME, ALL };

//! Whether the predicate can be evaluated on a column of this type (ordered, fixed or string).
bool PredicateSupported(const ColumnType &type);

//! From the zone statistics alone: NONE when no row can match, ALL when every row matches,
//! else SOME. Inexact (truncated) string bounds never prove anything beyond NULL counts.
ZoneMatch ClassifyZone(const Predicate &p, const ColumnType &type, const ZoneStats &stats);
//! An estimate of the share of a zone's rows `p` keeps, from its statistics alone (values taken
//! as spread evenly between the zone's bounds): for cost decisions, never for answers.
double EstimateShare(const Predicate &p, const ColumnType &type, const ZoneStats &stats);

//! Evaluates the predicate on every row of a decoded chunk: out[i] = 1 when row i matches, else 0.
void EvaluatePredicate(const Predicate &p, const ColumnType &type, const DecodedColumn &chunk, uint8_t *out);

//! Whether some non-NULL value of `type` satisfies `p`. Exact for integer kinds of up to eight
//! bytes, where a predicate's truth only changes at its constants, so that each constant, its two
//! neighbours and the type's two ends decide it; true (not known) for other types, and where `p`
//! asks for NULLs.
bool Satisfiable(const Predicate &p, const ColumnType &type);
//! Conjunction of classifications (AND over columns).
inline ZoneMatch And(ZoneMatch a, ZoneMatch b) {
	if (a == ZoneMatch::NONE || b == ZoneMatch::NONE) {
		return ZoneMatch::NONE;
	}
	return a == ZoneMatch::ALL && b == ZoneMatch::ALL ? ZoneMatch::ALL : ZoneMatch::SOME;
}

//! Disjunction of classifications.
inline ZoneMatch Or(ZoneMatch a, ZoneMatch b) {
	if (a == ZoneMatch::ALL || b == ZoneMatch::ALL) {
		return ZoneMatch::ALL;
	}
	return a == ZoneMatch::NONE && b == ZoneMatch::NONE ? ZoneMatch::NONE : ZoneMatch::SOME;
}

//! Negation of a classification whose ALL and NONE mean TRUE and FALSE on every row (never NULL).
inline ZoneMatch Not(ZoneMatch a) {
	return a == ZoneMatch::ALL ? ZoneMatch::NONE : a == ZoneMatch::NONE ? ZoneMatch::ALL : ZoneMatch::SOME;
}

} // namespace compute
} // namespace vtx
