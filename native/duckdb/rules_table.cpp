#include "rules_table.hpp"

namespace vortex {

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
