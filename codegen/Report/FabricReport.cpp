//===- FabricReport.cpp - Fabric figures, circuit table, Graphviz ---------===//
#include "codegen/Report/FabricReport.h"

#include "dialects/Plan/IR/PlanDialect.h"
#include "dialects/Plx/IR/PlxDialect.h"
#include "passes/Fabric/FabricGraph.h"
#include "passes/Fabric/NetworkCost.h"

#include <set>
#include <sstream>

using namespace mlir;
using namespace plexus;
using json = nlohmann::ordered_json;

json report::fabricAnalysisJson(plx::FabricOp fabricOp) {
  json j;
  j["name"] = fabricOp.getSymName().str();
  fabric::TopologyShape shape = fabricOp.getTopologyShape();
  j["topology"] = fabric::topologyKindName(shape.kind);
  j["chips"] = fabricOp.getChips();
  j["nodes"] = fabricOp.getNodes();
  fabric::FabricGraph graph;
  fabric::FabricBuildResult built =
      graph.build(shape, fabricOp.getNodes(), fabricOp.getChipsPerNode());
  if (!built.ok()) {
    j["error"] = built.problems.front().message;
    return j;
  }
  j["diameter_hops"] = graph.diameter();
  j["bisection_bandwidth_bytes_per_s"] = graph.bisectionBandwidth();
  fabric::ComparisonResult compared =
      fabric::compareWithFatTree(graph, fabricOp.getPriceTable());
  if (!compared.ok()) {
    j["cost_error"] = compared.problems.front();
    return j;
  }
  const fabric::FatTreeComparison &c = compared.comparison;
  j["injection_bandwidth_per_chip_bytes_per_s"] = c.fabric.injectionPerChip;
  // Whose prices the cost is counted at: the fabric's `prices { ... }`
  // block or the defaults of dialects/Common/Prices.h (docs/railx.md).
  j["prices"] = fabricOp.getPricesAttr() ? "spec" : "defaults";
  j["cost_usd"] = c.fabric.parts.totalUsd;
  j["cost_per_injection_bandwidth"] = c.fabric.costPerInjection;
  j["cost_per_bisection_bandwidth"] = c.fabric.costPerBisection;
  j["fat_tree_ratio"] = {{"injection", c.injectionRatio},
                         {"bisection", c.bisectionRatio}};
  j["fat_tree_cost_usd"] = c.fatTree.cost.parts.totalUsd;
  return j;
}

plx::FabricOp report::primaryFabric(ModuleOp module) {
  for (Operation &op : module.getBody()->getOperations()) {
    FlatSymbolRefAttr ref;
    if (auto train = dyn_cast<plx::TrainOp>(op))
      ref = train.getFabricAttr();
    else if (auto serve = dyn_cast<plx::ServeOp>(op))
      ref = serve.getFabricAttr();
    if (ref)
      return dyn_cast_or_null<plx::FabricOp>(
          SymbolTable::lookupSymbolIn(module, ref));
  }
  auto fabrics = module.getOps<plx::FabricOp>();
  if (!fabrics.empty() && std::next(fabrics.begin()) == fabrics.end())
    return *fabrics.begin();
  return {};
}

json report::circuitsJson(ModuleOp module) {
  json list = json::array();
  for (auto circuits : module.getOps<plan::CircuitsOp>()) {
    std::string fabricName = circuits.getSymName().str();
    const std::string suffix = "_circuits";
    if (fabricName.size() > suffix.size() &&
        fabricName.compare(fabricName.size() - suffix.size(), suffix.size(),
                           suffix) == 0)
      fabricName.resize(fabricName.size() - suffix.size());
    for (auto circuit : circuits.getBodyRegion().getOps<plan::CircuitOp>()) {
      json e;
      e["fabric"] = fabricName;
      e["axis"] = stringifyRailAxis(circuit.getAxis()).str();
      e["index"] = circuit.getIndex();
      e["rail"] = circuit.getRail();
      e["cycle"] = std::vector<int64_t>(circuit.getCycle().begin(),
                                        circuit.getCycle().end());
      if (auto ports = circuit.getPorts())
        e["ports"] = std::vector<int64_t>(ports->begin(), ports->end());
      list.push_back(std::move(e));
    }
  }
  return list;
}

std::optional<std::string> report::fabricDot(plx::FabricOp fabricOp,
                                             int64_t maxNodes,
                                             std::string &error) {
  if (fabricOp.getNodes() > maxNodes) {
    error = "fabric '" + fabricOp.getSymName().str() + "' has " +
            std::to_string(fabricOp.getNodes()) +
            " nodes; --emit=fabric-dot draws at most " +
            std::to_string(maxNodes);
    return std::nullopt;
  }
  fabric::FabricGraph graph;
  fabric::FabricBuildResult built =
      graph.build(fabricOp.getTopologyShape(), fabricOp.getNodes(),
                  fabricOp.getChipsPerNode());
  if (!built.ok()) {
    error = built.problems.front().message;
    return std::nullopt;
  }
  static const char *kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                   "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
  std::ostringstream os;
  fabric::TopologyShape shape = fabricOp.getTopologyShape();
  os << "// " << fabricOp.getSymName().str() << ": "
     << fabric::topologyKindName(shape.kind) << ", " << fabricOp.getNodes()
     << " nodes x " << fabricOp.getChipsPerNode() << " chips\n";
  os << "graph \"" << fabricOp.getSymName().str() << "\" {\n";
  os << "  layout=neato; overlap=false; splines=true;\n";
  os << "  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n";
  bool railx = shape.kind == fabric::TopologyKind::RailX;
  std::vector<int64_t> failedChips(fabricOp.getNodes(), 0);
  for (const fabric::FailedChip &c : fabricOp.getFaults().chips)
    if (c.node >= 0 && c.node < fabricOp.getNodes())
      ++failedChips[c.node];
  for (int64_t n = 0; n < fabricOp.getNodes(); ++n) {
    os << "  n" << n << " [label=\"node " << n << "\\n"
       << fabricOp.getChipsPerNode() << " chips";
    if (failedChips[n])
      os << "\\n" << failedChips[n] << " failed\", color=red, fontcolor=red";
    else
      os << "\"";
    if (railx)
      os << ", pos=\"" << (n % shape.cols) * 3.0 << ","
         << -(n / shape.cols) * 2.4 << "!\"";
    os << "];\n";
  }
  if (railx) {
    // One edge per circuit of every rail, coloured by rail; rows above,
    // columns below.
    auto drawDimension = [&](const fabric::RailDimension &dim, bool rows) {
      int64_t lines = rows ? shape.rows : shape.cols;
      for (int64_t line = 0; line < lines; ++line)
        for (size_t rail = 0; rail < dim.circuits.size(); ++rail) {
          const fabric::RailCircuit &c = dim.circuits[rail];
          if (c.ring.size() < 2)
            continue;
          auto nodeAt = [&](int32_t position) {
            return rows ? line * shape.cols + position
                        : position * shape.cols + line;
          };
          bool matching = c.kind == fabric::RailCircuit::Kind::Matching;
          size_t edges = matching ? c.ring.size() / 2 : c.ring.size();
          for (size_t k = 0; k < edges; ++k) {
            int32_t a = matching ? c.ring[2 * k] : c.ring[k];
            int32_t b =
                matching ? c.ring[2 * k + 1] : c.ring[(k + 1) % c.ring.size()];
            if (c.ring.size() == 2 && !matching && k == 1)
              break; // a 2-node ring is one cable pair
            os << "  n" << nodeAt(a) << " -- n" << nodeAt(b) << " [color=\""
               << kColours[rail % 8] << "\", tooltip=\""
               << (rows ? "row " : "col ") << line << " rail " << rail << "\""
               << (rows ? "" : ", style=dashed") << "];\n";
          }
        }
    };
    drawDimension(graph.row, true);
    drawDimension(graph.col, false);
  } else {
    // Switches as ellipses; each distinct adjacency once.
    std::set<std::pair<int64_t, int64_t>> drawn;
    for (int64_t v = 0; v < graph.vertexCount(); ++v) {
      if (graph.isSwitch(v))
        os << "  s" << v << " [shape=ellipse, label=\"switch\"];\n";
      graph.forEachNeighbor(v, [&](int64_t w, int64_t links) {
        if (!drawn.insert({std::min(v, w), std::max(v, w)}).second)
          return;
        os << "  " << (graph.isSwitch(v) ? "s" : "n") << v << " -- "
           << (graph.isSwitch(w) ? "s" : "n") << w;
        if (links > 1)
          os << " [penwidth=" << std::min<int64_t>(links, 6) << "]";
        os << ";\n";
      });
    }
  }
  os << "}\n";
  return os.str();
}
