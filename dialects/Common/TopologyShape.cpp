//===- TopologyShape.cpp - Sizing rules of the compact topologies ---------===//
//
// The rules a .plx fabric's topology fields must satisfy against the node
// count, with one message per violated rule naming the .plx field. Shared by
// the frontend's semantic pass and the plx dialect's verifiers.
//
//===----------------------------------------------------------------------===//

#include "dialects/Common/TopologyShape.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace plexus::fabric {

namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

/// a * b for non-negative a and b, saturating at INT64_MAX.
int64_t satMul(int64_t a, int64_t b) {
  if (a <= 0 || b <= 0)
    return 0;
  if (a > kInt64Max / b)
    return kInt64Max;
  return a * b;
}

std::string num(int64_t v) { return std::to_string(v); }

/// A double as a reader would write it: 1, 1.5, 3e+11.
std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

void add(std::vector<TopologyProblem> &out, const char *field,
         std::string message) {
  out.push_back({field, std::move(message)});
}

/// Checks `value > 0` for an integer size field.
bool checkPositive(std::vector<TopologyProblem> &out, const char *kind,
                   const char *field, int64_t value) {
  if (value > 0)
    return true;
  add(out, field,
      std::string(kind) + " " + field + " must be positive, got " + num(value));
  return false;
}

bool radixValid(int64_t k) { return k >= 2 && k % 2 == 0; }
bool tiersValid(int64_t tiers) { return tiers == 2 || tiers == 3; }
bool oversubscriptionValid(double o) { return std::isfinite(o) && o >= 1.0; }

void checkTreeFields(std::vector<TopologyProblem> &out, const TopologyShape &t,
                     const char *kind) {
  int64_t tiers = topologyEffectiveTiers(t);
  if (!tiersValid(tiers))
    add(out, "tiers",
        std::string(kind) + " tiers must be 2 or 3, got " + num(t.tiers));
  if (!radixValid(t.radix))
    add(out, "radix",
        std::string(kind) + " radix must be an even number >= 2, got " +
            num(t.radix));
  if (!oversubscriptionValid(t.oversubscription))
    add(out, "oversubscription",
        std::string(kind) + " oversubscription must be >= 1, got " +
            num(t.oversubscription));
}

bool treeFieldsValid(const TopologyShape &t) {
  return tiersValid(topologyEffectiveTiers(t)) && radixValid(t.radix) &&
         oversubscriptionValid(t.oversubscription);
}

std::string treeDescription(const TopologyShape &t) {
  return std::string(topologyKindName(t.kind)) + " with radix " + num(t.radix) +
         ", " + num(topologyEffectiveTiers(t)) +
         " tiers and oversubscription " + num(t.oversubscription);
}

} // namespace

const char *topologyKindName(TopologyKind kind) {
  switch (kind) {
  case TopologyKind::RailX:
    return "railx";
  case TopologyKind::FatTree:
    return "fat_tree";
  case TopologyKind::RailOptimized:
    return "rail_optimized";
  case TopologyKind::Torus:
    return "torus";
  }
  return "unknown";
}

bool parseTopologyKind(const std::string &name, TopologyKind &kind) {
  for (TopologyKind k : {TopologyKind::RailX, TopologyKind::FatTree,
                         TopologyKind::RailOptimized, TopologyKind::Torus}) {
    if (name == topologyKindName(k)) {
      kind = k;
      return true;
    }
  }
  return false;
}

int64_t topologyEffectiveTiers(const TopologyShape &t) {
  if (t.kind == TopologyKind::RailOptimized && t.tiers == 0)
    return 2;
  return t.tiers;
}

int64_t topologyLeafSwitches(const TopologyShape &t) {
  int64_t k = t.radix, tiers = topologyEffectiveTiers(t);
  if (!radixValid(k) || !tiersValid(tiers))
    return 0;
  // 2 tiers: each k-port spine reaches k leaves. 3 tiers: k pods of k/2
  // leaves (the core reaches k pods through k/2 aggregation switches each).
  return tiers == 2 ? k : satMul(k, k / 2);
}

int64_t topologyLeafDownlinks(const TopologyShape &t) {
  if (!radixValid(t.radix) || !oversubscriptionValid(t.oversubscription))
    return 0;
  long double down = static_cast<long double>(t.oversubscription) *
                     static_cast<long double>(t.radix / 2);
  if (down >= static_cast<long double>(kInt64Max))
    return kInt64Max;
  return static_cast<int64_t>(std::floor(down));
}

int64_t topologyEndpointCapacity(const TopologyShape &t) {
  switch (t.kind) {
  case TopologyKind::FatTree:
    if (!treeFieldsValid(t))
      return 0;
    return satMul(topologyLeafSwitches(t), topologyLeafDownlinks(t));
  case TopologyKind::RailOptimized: {
    if (!treeFieldsValid(t) || t.rails <= 0)
      return 0;
    int64_t leavesPerRail = topologyLeafSwitches(t) / t.rails;
    return satMul(t.rails, satMul(leavesPerRail, topologyLeafDownlinks(t)));
  }
  case TopologyKind::RailX:
    return satMul(t.rows, t.cols);
  case TopologyKind::Torus: {
    if (t.dims.empty())
      return 0;
    int64_t p = 1;
    for (int64_t d : t.dims)
      p = satMul(p, d);
    return p;
  }
  }
  return 0;
}

std::vector<TopologyProblem> checkTopologyShape(const TopologyShape &t,
                                                int64_t nodes,
                                                int64_t chipsPerNode) {
  std::vector<TopologyProblem> out;
  const char *kind = topologyKindName(t.kind);

  // !(x > 0) also rejects NaN.
  if (!(t.linkBandwidth > 0) || !std::isfinite(t.linkBandwidth))
    add(out, "link",
        std::string(kind) + " link bandwidth must be positive and finite, " +
            "got " + num(t.linkBandwidth) + " bytes/s");
  bool sizesKnown = true;
  if (nodes <= 0) {
    add(out, "nodes",
        "the fabric must have a positive node count, got " + num(nodes));
    sizesKnown = false;
  }
  if (chipsPerNode <= 0) {
    add(out, "chips_per_node",
        "the fabric must have a positive chips-per-node count, got " +
            num(chipsPerNode));
    sizesKnown = false;
  }

  switch (t.kind) {
  case TopologyKind::RailX: {
    bool ok = checkPositive(out, kind, "rows", t.rows);
    ok &= checkPositive(out, kind, "cols", t.cols);
    checkPositive(out, kind, "rails", t.rails);
    int64_t grid = satMul(t.rows, t.cols);
    if (ok && sizesKnown && grid != nodes)
      add(out, "rows",
          "railx grid " + num(t.rows) + " x " + num(t.cols) + " = " +
              num(grid) + " nodes, but the fabric has " + num(nodes) +
              " nodes");
    break;
  }
  case TopologyKind::Torus: {
    if (t.dims.size() != 2 && t.dims.size() != 3) {
      add(out, "dims",
          "torus dims must list 2 or 3 extents, got " +
              num(static_cast<int64_t>(t.dims.size())));
      break;
    }
    bool ok = true;
    std::string extents;
    for (size_t i = 0; i < t.dims.size(); ++i) {
      if (t.dims[i] <= 0) {
        add(out, "dims",
            "torus dims[" + num(static_cast<int64_t>(i)) +
                "] must be positive, got " + num(t.dims[i]));
        ok = false;
      }
      extents += (i ? " x " : "") + num(t.dims[i]);
    }
    int64_t product = topologyEndpointCapacity(t);
    if (ok && sizesKnown && product != nodes)
      add(out, "dims",
          "torus " + extents + " = " + num(product) +
              " nodes, but the fabric has " + num(nodes) + " nodes");
    break;
  }
  case TopologyKind::FatTree: {
    checkTreeFields(out, t, kind);
    if (!treeFieldsValid(t) || !sizesKnown)
      break;
    int64_t need = satMul(nodes, chipsPerNode);
    int64_t cap = topologyEndpointCapacity(t);
    if (cap < need)
      add(out, "radix",
          treeDescription(t) + " attaches at most " + num(cap) +
              " endpoints, but the fabric needs " + num(need) + " (" +
              num(nodes) + " nodes x " + num(chipsPerNode) + " chips)");
    break;
  }
  case TopologyKind::RailOptimized: {
    bool railsOk = checkPositive(out, kind, "rails", t.rails);
    if (railsOk && chipsPerNode > 0 && t.rails != chipsPerNode) {
      add(out, "rails",
          "rail_optimized rails must equal the chips per node (" +
              num(chipsPerNode) + "), got " + num(t.rails));
      railsOk = false;
    }
    checkTreeFields(out, t, kind);
    if (!railsOk || !treeFieldsValid(t) || !sizesKnown)
      break;
    int64_t leavesPerRail = topologyLeafSwitches(t) / t.rails;
    int64_t down = topologyLeafDownlinks(t);
    int64_t perRail = satMul(leavesPerRail, down);
    if (perRail < nodes)
      add(out, "radix",
          treeDescription(t) + " gives each of the " + num(t.rails) +
              " rails " + num(leavesPerRail) + " leaf switches x " + num(down) +
              " ports = " + num(perRail) + " node ports, but the fabric has " +
              num(nodes) + " nodes");
    break;
  }
  }
  return out;
}

} // namespace plexus::fabric
