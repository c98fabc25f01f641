#include "rules_table.hpp"

#include <set>
#include <tuple>

namespace vortex {

namespace {

using RuleKey = std::tuple<std::string, std::string, std::string, bool, bool, bool>;

std::set<RuleKey> Keys(const RulesTable &table) {
	std::set<RuleKey> keys;
	for (auto &r : table.rules) {
		keys.emplace(r.function, r.type_key, r.setting, r.skip_nans, r.empty_is_null, r.non_finite_is_nan);
	}
	return keys;
}

std::string Name(const RuleKey &k) {
	return std::get<0>(k) + "(" + std::get<1>(k) + ")";
}

std::string Missing(const std::set<RuleKey> &a, const std::set<RuleKey> &b, const char *where) {
	std::vector<std::string> names;
	for (auto &k : a) {
		if (!b.count(k)) {
			names.push_back(Name(k));
		}
	}
	if (names.empty()) {
		return "";
	}
	std::string out = std::to_string(names.size()) + (names.size() == 1 ? " rule only " : " rules only ") + where + ": ";
	for (size_t i = 0; i < names.size() && i < 5; i++) {
		out += (i ? ", " : "") + names[i];
	}
	if (names.size() > 5) {
		out += ", ...";
	}
	return out;
}

} // namespace

bool RulesTable::SameRules(const RulesTable &other) const {
	return Keys(*this) == Keys(other);
}

std::string RulesTable::DescribeDifference(const RulesTable &other, const char *here, const char *there) const {
	auto mine = Keys(*this);
	auto theirs = Keys(other);
	auto a = Missing(mine, theirs, here);
	auto b = Missing(theirs, mine, there);
	return a.empty() ? b : b.empty() ? a : a + "; " + b;
}

const PushdownRule *RulesTable::Find(const std::string &function, const std::string &type_key) const {
	for (auto &r : rules) {
		if (r.function == function && r.type_key == type_key) {
			return &r;
		}
	}
	return nullptr;
}

std::string TypeKey(const duckdb::LogicalType &type) {
	if (type.id() == duckdb::LogicalTypeId::DECIMAL) {
		return duckdb::DecimalType::GetWidth(type) <= 18 ? "DECIMAL(<=18)" : "DECIMAL(>18)";
	}
	return duckdb::LogicalTypeIdToString(type.id());
}

} // namespace vortex
