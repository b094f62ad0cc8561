//===- ReportAttr.h - A report's JSON as an attribute and back --*- C++ -*-===//
//
// The prediction passes attach what plxc reports for a job to the job's op
// as a dictionary attribute (`plan.prediction`), and plxc renders its
// reports from it. A dictionary attribute sorts its keys, so the way back
// takes the report's key order; an object whose keys are names (each
// baseline's outcome under its name) becomes a list of dictionaries that
// hold their "name", which keeps the report's order.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_REPORT_REPORTATTR_H
#define PLEXUS_PASSES_REPORT_REPORTATTR_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <nlohmann/json.hpp>

namespace plexus::report {

/// The attribute the prediction passes (plx-predict-train,
/// plx-serve-pipeline) attach to each job with its report.
constexpr const char kPredictionAttrName[] = "plan.prediction";

/// `j` as a dictionary: objects as dictionaries, arrays as arrays, integers
/// as i64, other numbers as f64, strings, booleans, null as a unit
/// attribute. The object under the top-level key `namedKey` (when present)
/// becomes a list of its values, each with its key as "name".
mlir::DictionaryAttr reportAttr(mlir::MLIRContext *context,
                                nlohmann::ordered_json j,
                                llvm::StringRef namedKey);

/// The way back: each object's keys in the order of `keyOrder` (keys not
/// in it last, by name), the list under `namedKey` an object again. Equals
/// the JSON reportAttr was made from when `keyOrder` lists every key in an
/// order that agrees with each object's.
nlohmann::ordered_json reportJson(mlir::DictionaryAttr attr,
                                  llvm::ArrayRef<llvm::StringRef> keyOrder,
                                  llvm::StringRef namedKey);

} // namespace plexus::report

#endif // PLEXUS_PASSES_REPORT_REPORTATTR_H
