//===- FaultsTest.cpp - Range rules of a fabric's failed parts ------------===//
#include "dialects/Common/Faults.h"

#include <gtest/gtest.h>

using namespace plexus::fabric;

namespace {
TopologyShape railx3x3() {
  TopologyShape t;
  t.kind = TopologyKind::RailX;
  t.rows = 3;
  t.cols = 3;
  t.rails = 2;
  t.linkBandwidth = 1e11;
  return t;
}
} // namespace

TEST(Faults, ValidEntriesPass) {
  FabricFaults f;
  f.chips = {{8, 3}}; // last node, last chip of 4
  f.links = {{0, 8}};
  f.ports = {{RailAxis::Col, 2, 1, 2}}; // column 2, rail 1, position 2
  EXPECT_TRUE(checkFaults(railx3x3(), 9, 4, f).empty());
}

TEST(Faults, ChipsOutOfRangeOrRepeated) {
  FabricFaults f;
  f.chips = {{9, 0}, {0, 4}, {1, 1}, {1, 1}};
  auto p = checkFaults(railx3x3(), 9, 4, f);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].message, "failed chip: node 9 is outside [0, 9)");
  EXPECT_EQ(p[1].message,
            "failed chip: chip index 4 is outside [0, 4) of a node");
  EXPECT_EQ(p[2].message, "chip(1, 1) is listed twice");
  EXPECT_EQ(p[2].index, 3u);
}

TEST(Faults, LinksJoinTwoDifferentNodesOnce) {
  FabricFaults f;
  f.links = {{3, 3}, {2, 5}, {5, 2}, {0, 12}};
  auto p = checkFaults(railx3x3(), 9, 4, f);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].message,
            "failed link: a link joins two different nodes, got 3 twice");
  EXPECT_EQ(p[1].message, "link(5, 2) is listed twice"); // same link, reversed
  EXPECT_EQ(p[2].message, "failed link: node 12 is outside [0, 9)");
}

TEST(Faults, PortsAreCheckedPerAxis) {
  FabricFaults f;
  f.ports = {{RailAxis::Row, 3, 0, 0}, // only rows 0..2
             {RailAxis::Row, 0, 2, 0}, // only rails 0..1
             {RailAxis::Col, 0, 0, 3}, // a column has positions 0..2
             {RailAxis::Row, 1, 1, 1},
             {RailAxis::Row, 1, 1, 1}};
  auto p = checkFaults(railx3x3(), 9, 4, f);
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0].message, "failed port: row 3 is outside [0, 3)");
  EXPECT_EQ(p[1].message, "failed port: rail 2 is outside [0, 2)");
  EXPECT_EQ(p[2].message,
            "failed port: position 3 is outside [0, 3) along a column");
  EXPECT_EQ(p[3].message, "the same port is listed twice");
}

TEST(Faults, PortsOnlyOnRailX) {
  TopologyShape tree;
  tree.kind = TopologyKind::FatTree;
  FabricFaults f;
  f.ports = {{RailAxis::Row, 0, 0, 0}};
  auto p = checkFaults(tree, 4, 1, f);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(
      p[0].message,
      "failed OCS ports exist only on railx fabrics; this one is fat_tree");
}
