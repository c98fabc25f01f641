#include "zone_filters.hpp"

#include <algorithm>


namespace vortex {

using namespace duckdb;
using vtx::compute::ZoneMatch;

ZoneFilter::ZoneFilter(ClientContext &context, const std::vector<PushedFilter> &predicates,
                       const std::vector<ExpressionFilter> &expressions, const std::vector<vtx::Field> &fields,
                       const vector<LogicalType> &types, const FileColumns &file_columns, const std::vector<ScanFile> &files,
                       FilterColumns columns)
    : predicates(predicates), expressions(expressions), fields(fields), types(types), file_columns(file_columns),
      files(files), columns(std::move(columns)), evaluator(context, expressions) {
}

void ZoneCounters::Show(InsertionOrderPreservingMap<string> &result) const {
	result["Zones From Statistics"] = std::to_string(from_stats);
	result["Zones Skipped"] = std::to_string(skipped);
	result["Zones Decoded"] = std::to_string(decoded);
}

ZoneMatch ZoneFilter::Classify(const vtx::ZoneMeta &zone, idx_t file, std::vector<ZoneMatch> &matches) {
	matches.resize(Count());
	auto match = ZoneMatch::ALL;
	for (idx_t k = 0; k < predicates.size() && match != ZoneMatch::NONE; k++) {
		auto &pf = predicates[k];
		matches[k] = vtx::compute::ClassifyZone(pf.predicate, columns.type(pf.field), columns.stats(zone, pf.field));
		match = vtx::compute::And(match, matches[k]);
	}
	if (match == ZoneMatch::NONE || expressions.empty()) {
		return match;
	}
	ZoneColumns known;
	known.zone = &zone;
	known.fields = &fields;
	known.types = &types;
	known.file_constant = [&](idx_t column) {
		Value v;
		file_columns.Constant(column, file, files[file].path, v);
		return v;
	};
	for (idx_t k = 0; k < expressions.size() && match != ZoneMatch::NONE; k++) {
		auto &m = matches[predicates.size() + k];
		m = evaluator.Classify(k, known);
		match = vtx::compute::And(match, m);
	}
	return match;
}

bool ZoneFilter::OnlyPredicatesRead(idx_t field) const {
	if (field >= fields.size()) {
		return false; // a struct's field: read through its parent's streams
	}
	for (auto &e : expressions) {
		if (std::find(e.columns.begin(), e.columns.end(), field) != e.columns.end()) {
			return false;
		}
	}
	return true;
}

void ZoneFilter::Fields(const std::vector<ZoneMatch> &matches, std::vector<idx_t> &out) const {
	for (idx_t k = 0; k < predicates.size(); k++) {
		if (matches[k] != ZoneMatch::ALL) {
			out.push_back(predicates[k].field);
		}
	}
	for (idx_t k = 0; k < expressions.size(); k++) {
		if (matches[predicates.size() + k] == ZoneMatch::ALL) {
			continue;
		}
		for (auto id : expressions[k].columns) {
			if (id < fields.size()) {
				out.push_back(id);
			}
		}
	}
}

ZoneMatch ZoneFilter::Filter(const vtx::ZoneMeta &zone, idx_t file, const std::vector<ZoneMatch> &matches,
                             const std::function<const vtx::DecodedColumn &(idx_t field)> &column,
                             vtx::compute::ZoneMask &mask) {
	mask.Begin(zone.rows);
	auto match = ZoneMatch::ALL;
	for (idx_t k = 0; k < predicates.size(); k++) {
		if (matches[k] != ZoneMatch::ALL) {
			auto &pf = predicates[k];
			mask.And(pf.predicate, columns.type(pf.field), column(pf.field));
			match = ZoneMatch::SOME;
		}
	}
	for (idx_t k = 0; k < expressions.size(); k++) {
		if (matches[predicates.size() + k] == ZoneMatch::ALL) {
			continue;
		}
		std::vector<FilterInput> inputs;
		for (auto id : expressions[k].columns) {
			FilterInput in;
			if (id < fields.size()) {
				in.decoded = &column(id);
				in.type = fields[id].type;
				in.logical = types[id];
			} else {
				file_columns.Constant(id, file, files[file].path, in.constant);
				in.logical = in.constant.type();
			}
			inputs.push_back(std::move(in));
		}
		auto m = evaluator.Evaluate(k, inputs, zone.rows, mask);
		if (m == ZoneMatch::NONE) {
			return ZoneMatch::NONE;
		}
		match = vtx::compute::And(match, m);
	}
	return match;
}

} // namespace vortex
