//===- FabricReport.h - Fabric figures, circuit table, Graphviz -*- C++ -*-===//
//
// What plxc prints about a fabric: its diameter, bisection and network cost
// against a fat-tree of the same chips (`"fabric"` in --report=json), the
// OCS circuit table written by plx-place (--emit=circuits), and a Graphviz
// drawing of a small fabric (--emit=fabric-dot). Reads IR and asks the
// plain fabric library; decides nothing.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_CODEGEN_REPORT_FABRICREPORT_H
#define PLEXUS_CODEGEN_REPORT_FABRICREPORT_H

#include "mlir/IR/BuiltinOps.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <ostream>
#include <string>

namespace plexus::plx {
class FabricOp;
} // namespace plexus::plx

namespace plexus::report {

/// {"name", "topology", "chips", "nodes", "diameter_hops",
///  "bisection_bandwidth_bytes_per_s",
///  "injection_bandwidth_per_chip_bytes_per_s", "cost_usd",
///  "cost_per_injection_bandwidth", "cost_per_bisection_bandwidth",
///  "fat_tree_ratio": {"injection", "bisection"}}, or {"name", "error"} when
/// the fabric cannot be analysed.
nlohmann::ordered_json fabricAnalysisJson(plx::FabricOp fabric);

/// The fabric the report's top-level "fabric" describes: the first job's, or
/// the only fabric when there is no job. Null when there is none.
plx::FabricOp primaryFabric(mlir::ModuleOp module);

/// The plan.circuits of `module` as a JSON list, one entry per rail:
/// {"fabric", "axis": "row"|"col", "index", "rail", "cycle": [node ids]}.
nlohmann::ordered_json circuitsJson(mlir::ModuleOp module);

/// Graphviz of `fabric`: nodes as boxes (node id, chips), RailX circuits
/// coloured by rail, tree switches as ellipses. Fails (returns nullopt and
/// sets `error`) above `maxNodes` nodes.
std::optional<std::string> fabricDot(plx::FabricOp fabric, int64_t maxNodes,
                                     std::string &error);

} // namespace plexus::report

#endif // PLEXUS_CODEGEN_REPORT_FABRICREPORT_H
