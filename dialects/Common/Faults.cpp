//===- Faults.cpp - Failed chips, links and OCS ports of a fabric ---------===//
#include "dialects/Common/Faults.h"

#include <set>
#include <tuple>

using namespace plexus::fabric;

namespace {
std::string range(int64_t value, int64_t limit) {
  return std::to_string(value) + " is outside [0, " + std::to_string(limit) +
         ")";
}
} // namespace

std::vector<FaultProblem>
plexus::fabric::checkFaults(const TopologyShape &t, int64_t nodes,
                            int64_t chipsPerNode, const FabricFaults &faults) {
  std::vector<FaultProblem> problems;
  std::set<std::pair<int64_t, int64_t>> chips;
  for (size_t i = 0; i < faults.chips.size(); ++i) {
    const FailedChip &c = faults.chips[i];
    if (c.node < 0 || c.node >= nodes)
      problems.push_back(
          {"chip", i, "failed chip: node " + range(c.node, nodes)});
    else if (c.local < 0 || c.local >= chipsPerNode)
      problems.push_back({"chip", i,
                          "failed chip: chip index " +
                              range(c.local, chipsPerNode) + " of a node"});
    else if (!chips.insert({c.node, c.local}).second)
      problems.push_back({"chip", i,
                          "chip(" + std::to_string(c.node) + ", " +
                              std::to_string(c.local) + ") is listed twice"});
  }
  std::set<std::pair<int64_t, int64_t>> links;
  for (size_t i = 0; i < faults.links.size(); ++i) {
    const FailedLink &l = faults.links[i];
    if (l.a < 0 || l.a >= nodes || l.b < 0 || l.b >= nodes)
      problems.push_back(
          {"link", i,
           "failed link: node " +
               range(l.a < 0 || l.a >= nodes ? l.a : l.b, nodes)});
    else if (l.a == l.b)
      problems.push_back(
          {"link", i,
           "failed link: a link joins two different nodes, got " +
               std::to_string(l.a) + " twice"});
    else if (!links.insert({std::min(l.a, l.b), std::max(l.a, l.b)}).second)
      problems.push_back({"link", i,
                          "link(" + std::to_string(l.a) + ", " +
                              std::to_string(l.b) + ") is listed twice"});
  }
  std::set<std::tuple<int, int64_t, int64_t, int64_t>> ports;
  for (size_t i = 0; i < faults.ports.size(); ++i) {
    const FailedPort &p = faults.ports[i];
    if (t.kind != TopologyKind::RailX) {
      problems.push_back({"port", i,
                          std::string("failed OCS ports exist only on railx "
                                      "fabrics; this one is ") +
                              topologyKindName(t.kind)});
      continue;
    }
    bool row = p.axis == RailAxis::Row;
    int64_t lines = row ? t.rows : t.cols;  // how many rows (columns)
    int64_t length = row ? t.cols : t.rows; // nodes along one of them
    const char *axis = row ? "row" : "column";
    if (p.index < 0 || p.index >= lines)
      problems.push_back(
          {"port", i,
           std::string("failed port: ") + axis + " " + range(p.index, lines)});
    else if (p.rail < 0 || p.rail >= t.rails)
      problems.push_back(
          {"port", i, "failed port: rail " + range(p.rail, t.rails)});
    else if (p.position < 0 || p.position >= length)
      problems.push_back({"port", i,
                          std::string("failed port: position ") +
                              range(p.position, length) + " along a " + axis});
    else if (!ports.insert({row ? 0 : 1, p.index, p.rail, p.position}).second)
      problems.push_back({"port", i, "the same port is listed twice"});
  }
  return problems;
}
