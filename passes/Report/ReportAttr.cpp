//===- ReportAttr.cpp - A report's JSON as an attribute and back ----------===//
#include "passes/Report/ReportAttr.h"

#include <algorithm>

using namespace mlir;

namespace plexus::report {

namespace {

Attribute attributeOf(Builder &b, const nlohmann::ordered_json &j) {
  switch (j.type()) {
  case nlohmann::ordered_json::value_t::object: {
    SmallVector<NamedAttribute> fields;
    for (auto it = j.begin(); it != j.end(); ++it)
      fields.push_back(b.getNamedAttr(it.key(), attributeOf(b, it.value())));
    return b.getDictionaryAttr(fields);
  }
  case nlohmann::ordered_json::value_t::array: {
    SmallVector<Attribute> items;
    for (const nlohmann::ordered_json &v : j)
      items.push_back(attributeOf(b, v));
    return b.getArrayAttr(items);
  }
  case nlohmann::ordered_json::value_t::string:
    return b.getStringAttr(j.get<std::string>());
  case nlohmann::ordered_json::value_t::boolean:
    return b.getBoolAttr(j.get<bool>());
  case nlohmann::ordered_json::value_t::number_integer:
  case nlohmann::ordered_json::value_t::number_unsigned:
    return b.getI64IntegerAttr(j.get<int64_t>());
  case nlohmann::ordered_json::value_t::number_float:
    return b.getF64FloatAttr(j.get<double>());
  default:
    return b.getUnitAttr();
  }
}

nlohmann::ordered_json jsonOf(Attribute a, ArrayRef<StringRef> order) {
  if (auto dict = dyn_cast<DictionaryAttr>(a)) {
    auto rank = [&](StringRef key) {
      return static_cast<size_t>(std::find(order.begin(), order.end(), key) -
                                 order.begin());
    };
    std::vector<NamedAttribute> fields(dict.begin(), dict.end());
    // The dictionary is sorted by name, so keys of equal rank stay so.
    std::stable_sort(fields.begin(), fields.end(),
                     [&](const NamedAttribute &x, const NamedAttribute &y) {
                       return rank(x.getName()) < rank(y.getName());
                     });
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (const NamedAttribute &f : fields)
      j[f.getName().str()] = jsonOf(f.getValue(), order);
    return j;
  }
  if (auto array = dyn_cast<ArrayAttr>(a)) {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (Attribute v : array)
      j.push_back(jsonOf(v, order));
    return j;
  }
  if (auto s = dyn_cast<StringAttr>(a))
    return s.str();
  if (auto b = dyn_cast<BoolAttr>(a)) // before IntegerAttr: it is an i1
    return b.getValue();
  if (auto i = dyn_cast<IntegerAttr>(a))
    return i.getInt();
  if (auto f = dyn_cast<FloatAttr>(a))
    return f.getValueAsDouble();
  return nullptr;
}

} // namespace

DictionaryAttr reportAttr(MLIRContext *context, nlohmann::ordered_json j,
                          StringRef namedKey) {
  if (j.is_object() && j.contains(namedKey.str()) &&
      j[namedKey.str()].is_object()) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (auto it = j[namedKey.str()].begin(); it != j[namedKey.str()].end();
         ++it) {
      nlohmann::ordered_json entry = it.value();
      entry["name"] = it.key();
      list.push_back(std::move(entry));
    }
    j[namedKey.str()] = std::move(list);
  }
  Builder b(context);
  return cast<DictionaryAttr>(attributeOf(b, j));
}

nlohmann::ordered_json reportJson(DictionaryAttr attr,
                                  ArrayRef<StringRef> keyOrder,
                                  StringRef namedKey) {
  nlohmann::ordered_json j = jsonOf(attr, keyOrder);
  if (j.contains(namedKey.str()) && j[namedKey.str()].is_array()) {
    nlohmann::ordered_json byName = nlohmann::ordered_json::object();
    for (nlohmann::ordered_json &entry : j[namedKey.str()]) {
      std::string name = entry.value("name", "");
      entry.erase("name");
      byName[name] = std::move(entry);
    }
    j[namedKey.str()] = std::move(byName);
  }
  return j;
}

} // namespace plexus::report
