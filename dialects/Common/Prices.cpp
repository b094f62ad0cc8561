//===- Prices.cpp - The price table a fabric's network is bought at -------===//
#include "dialects/Common/Prices.h"

#include <algorithm>
#include <cmath>

namespace plexus::fabric {

void mergeSpeedClass(PriceTable &table, const SpeedClassPrice &c) {
  auto it =
      std::find_if(table.speeds.begin(), table.speeds.end(),
                   [&](const SpeedClassPrice &s) { return s.gbps >= c.gbps; });
  if (it != table.speeds.end() && it->gbps == c.gbps)
    *it = c;
  else
    table.speeds.insert(it, c);
}

std::vector<PriceProblem> checkPrices(const PriceTable &table) {
  std::vector<PriceProblem> problems;
  auto usd = [&](double v, const std::string &field, int64_t index) {
    if (!std::isfinite(v) || v < 0)
      problems.push_back(
          {field, index,
           "price '" + field + "' must be a finite amount of at least 0 USD"});
  };
  usd(table.ocsPortUsd, "ocs_port", -1);
  usd(table.fibreUsd, "fibre", -1);
  if (table.ocsRadix < 2)
    problems.push_back({"ocs_radix", -1,
                        "an OCS has at least 2 ports, got ocs_radix = " +
                            std::to_string(table.ocsRadix)});
  if (table.speeds.empty())
    problems.push_back({"speeds", -1, "the price table has no speed class"});
  for (size_t i = 0; i < table.speeds.size(); ++i) {
    const SpeedClassPrice &s = table.speeds[i];
    const int64_t k = static_cast<int64_t>(i);
    if (!std::isfinite(s.gbps) || s.gbps <= 0)
      problems.push_back({"speeds", k, "a speed class needs a positive rate"});
    else if (i > 0 && !(table.speeds[i - 1].gbps < s.gbps))
      problems.push_back(
          {"speeds", k, "speed classes must have distinct rates, ascending"});
    usd(s.transceiverUsd, "transceiver", k);
    usd(s.switchPortUsd, "switch_port", k);
    usd(s.nicPortUsd, "nic", k);
    if (s.switchRadix < 2)
      problems.push_back({"speeds", k,
                          "a switch has at least 2 ports, got switch_radix = " +
                              std::to_string(s.switchRadix)});
  }
  return problems;
}

} // namespace plexus::fabric
