//===- FabricFixtures.h - Small fabrics for the fabric tests ----*- C++ -*-===//
//
// Topologies with 100 GB/s links and a builder that fails the test on any
// sizing problem, shared by the fabric library's unit tests.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_TEST_UNIT_FABRIC_FABRICFIXTURES_H
#define PLEXUS_TEST_UNIT_FABRIC_FABRICFIXTURES_H

#include "passes/Fabric/FabricGraph.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace plexus::fabric::fixtures {

inline constexpr double kB = 100e9; // bytes/s of one inter-node link

inline TopologyShape railx(int64_t rows, int64_t cols, int64_t rails,
                           bool directed = false) {
  TopologyShape t;
  t.kind = TopologyKind::RailX;
  t.linkBandwidth = kB;
  t.rows = rows;
  t.cols = cols;
  t.rails = rails;
  t.directed = directed;
  return t;
}

inline TopologyShape torus(std::vector<int64_t> dims) {
  TopologyShape t;
  t.kind = TopologyKind::Torus;
  t.linkBandwidth = kB;
  t.dims = std::move(dims);
  return t;
}

inline TopologyShape tree(TopologyKind kind, int64_t radix, int64_t tiers,
                          int64_t rails = 0, double over = 1.0) {
  TopologyShape t;
  t.kind = kind;
  t.linkBandwidth = kB;
  t.radix = radix;
  t.tiers = tiers;
  t.rails = rails;
  t.oversubscription = over;
  return t;
}

inline TopologyShape fatTree(int64_t radix, int64_t tiers, double over = 1.0) {
  return tree(TopologyKind::FatTree, radix, tiers, 0, over);
}

/// Builds the graph; any sizing problem fails the calling test.
inline FabricGraph built(const TopologyShape &t, int64_t nodes, int64_t cpn) {
  FabricGraph g;
  FabricBuildResult r = g.build(t, nodes, cpn);
  for (const auto &p : r.problems)
    ADD_FAILURE() << p.field << ": " << p.message;
  return g;
}

} // namespace plexus::fabric::fixtures

#endif // PLEXUS_TEST_UNIT_FABRIC_FABRICFIXTURES_H
