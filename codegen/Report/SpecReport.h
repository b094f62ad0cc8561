//===- SpecReport.h - What a checked spec declares, for people --*- C++ -*-===//
//
// `plxc --report=json|text`: per job its kind and the resolved model, data
// and fabric figures, read from the plx IR (never from the .plx text).
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_CODEGEN_REPORT_SPECREPORT_H
#define PLEXUS_CODEGEN_REPORT_SPECREPORT_H

#include "mlir/IR/BuiltinOps.h"

#include <nlohmann/json.hpp>

#include <ostream>

namespace plexus::report {

/// {"jobs": [{"name", "kind", "model": {...}, "data"|"workload": {...},
///  "fabric": {...}}, ...]} with keys in a fixed order.
/// `predictions` (an object, possibly empty) maps a train job's name to
/// fields merged into its entry: the train pipeline's plan, predicted step
/// time, MFU, memory and baselines (passes/Train/TrainPipeline.h).
nlohmann::ordered_json
specReportJson(mlir::ModuleOp module,
               const nlohmann::ordered_json &predictions =
                   nlohmann::ordered_json::object());

/// What the text report shows beyond its default.
struct TextReportOptions {
  /// Each train job's every plan judged for step 0, ranked (the JSON's
  /// "explored"), in place of its baselines' list.
  bool explore = false;
};

/// The same content as a short human-readable text.
void printSpecReport(mlir::ModuleOp module, std::ostream &os,
                     const nlohmann::ordered_json &predictions =
                         nlohmann::ordered_json::object(),
                     const TextReportOptions &options = {});

/// "6.74 B", "355.2 B", "124.4 M": a parameter count for people.
std::string formatCount(double count);
/// "312 TFLOP/s", "1.8 TB/s", "40 GB": decimal-prefixed figures.
std::string formatDecimal(double value, const std::string &unit);

} // namespace plexus::report

#endif // PLEXUS_CODEGEN_REPORT_SPECREPORT_H
