//===- Prices.h - The price table of a fabric's network ---------*- C++ -*-===//
//
// What a .plx fabric's `prices { ... }` block says (docs/language.md,
// "prices"), and the defaults when it is absent: transceivers, electrical
// switch ports and NIC ports per line-rate class, optical circuit switch
// ports, fibre. Plain C++, shared by the frontend's semantic pass, the plx
// dialect's verifier and the network cost model (passes/Fabric/NetworkCost).
// Every default, its source and what we assumed: docs/railx.md, "Network
// cost".
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_DIALECTS_COMMON_PRICES_H
#define PLEXUS_DIALECTS_COMMON_PRICES_H

#include <cstdint>
#include <string>
#include <vector>

namespace plexus::fabric {

/// Prices of the parts that run at one line rate. Electrical switches are
/// priced per port; the radix is the port count of one switch box at this
/// rate, which sets the tiers of the equivalent fat-tree.
struct SpeedClassPrice {
  double gbps = 0;           ///< line rate, Gb/s per direction
  double transceiverUsd = 0; ///< one pluggable optical transceiver
  double switchPortUsd = 0;  ///< one electrical packet-switch port
  int64_t switchRadix = 0;   ///< ports of one electrical switch box
  double nicPortUsd = 0;     ///< one NIC port (0: the chip drives optics)

  bool operator==(const SpeedClassPrice &o) const {
    return gbps == o.gbps && transceiverUsd == o.transceiverUsd &&
           switchPortUsd == o.switchPortUsd && switchRadix == o.switchRadix &&
           nicPortUsd == o.nicPortUsd;
  }
};

/// The price table. Defaults are documented in docs/railx.md ("Network
/// cost"): sourced figures and our assumptions are marked there.
struct PriceTable {
  /// One port of an optical circuit switch (a MEMS OCS prorated per port).
  double ocsPortUsd = 300;
  /// Ports of one OCS box; a rail that needs more is flagged (a rail's
  /// circuits must sit in one OCS to be one reconfigurable cycle).
  int64_t ocsRadix = 300;
  /// One fibre cable (duplex or MPO, tens of metres) between two ports.
  double fibreUsd = 50;
  /// Line-rate classes, ascending by gbps. A link is priced as the slowest
  /// class at least as fast as it.
  std::vector<SpeedClassPrice> speeds = {
      // gbps, transceiver, switch port, switch radix, NIC port
      {400, 350, 400, 128, 0},
      {800, 600, 800, 64, 0},
      {1600, 1100, 1400, 64, 0},
  };

  bool operator==(const PriceTable &o) const {
    return ocsPortUsd == o.ocsPortUsd && ocsRadix == o.ocsRadix &&
           fibreUsd == o.fibreUsd && speeds == o.speeds;
  }
  bool operator!=(const PriceTable &o) const { return !(*this == o); }
};

/// Puts `c` into `table`: it replaces the class of the same line rate, or
/// joins the list in ascending order. A spec's `speeds = [...]` entries are
/// merged this way, so a user can quote one class and keep the others.
void mergeSpeedClass(PriceTable &table, const SpeedClassPrice &c);

/// One broken rule of a price table; `field` names the spec field
/// ("ocs_port", "speeds") and `index` the speed class when it is one.
struct PriceProblem {
  std::string field;
  int64_t index = -1;
  std::string message;
};

/// The rules a table must keep: prices finite and not negative, an OCS radix
/// of at least 2, at least one speed class, classes with positive, distinct,
/// ascending rates and a switch radix of at least 2.
std::vector<PriceProblem> checkPrices(const PriceTable &table);

} // namespace plexus::fabric

#endif // PLEXUS_DIALECTS_COMMON_PRICES_H
