//===- PlanServeOps.cpp - Serving layouts and policies --------------------===//
//
// Verifiers of plan.serve_layout and plan.serve_policy. verify() holds the
// rules an op can check alone; verifySymbolUses() checks that the symbols it
// names are ops of the right kind. The plan dialect does not depend on the
// plx dialect, so a plx.serve is recognised by its name.
//
//===----------------------------------------------------------------------===//
#include "dialects/Common/DecimalFormat.h"
#include "dialects/Plan/IR/PlanDialect.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <string>

using namespace mlir;
using namespace plexus::plan;

static std::string formatDecimal(double value) {
  if (!std::isfinite(value))
    return std::isnan(value) ? "nan" : (value < 0 ? "-inf" : "inf");
  return plexus::dialects::formatShortestDecimal(value);
}

/// Predicted times are seconds: finite and non-negative.
static LogicalResult verifySeconds(Operation *op, StringRef what,
                                   double seconds) {
  if (std::isfinite(seconds) && seconds >= 0)
    return success();
  return op->emitOpError() << what
                           << " must be a finite, non-negative number of "
                              "seconds, got "
                           << formatDecimal(seconds);
}

/// Checks that `symbol`, seen from `op`, names an op called `expected`;
/// the error says what it names instead.
static LogicalResult verifyNames(Operation *op,
                                 SymbolTableCollection &symbolTable,
                                 StringRef what, FlatSymbolRefAttr symbol,
                                 StringRef expected) {
  Operation *found = symbolTable.lookupNearestSymbolFrom(op, symbol);
  if (!found)
    return op->emitOpError() << what << " '" << symbol.getValue()
                             << "' does not name a declaration";
  if (found->getName().getStringRef() != expected)
    return op->emitOpError()
           << what << " '" << symbol.getValue() << "' names a '"
           << found->getName() << "', expected a '" << expected << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// ServeLayoutOp
//===----------------------------------------------------------------------===//

LogicalResult ServeLayoutOp::verify() {
  if (getChips() < 1)
    return emitOpError("chip count must be at least 1, got ") << getChips();
  if (getInstances() < 1)
    return emitOpError("instance count must be at least 1, got ")
           << getInstances();
  if (getPp() < 1)
    return emitOpError("pipeline degree pp must be at least 1, got ")
           << getPp();
  if (getEp() < 1)
    return emitOpError("expert-parallel degree ep must be at least 1, got ")
           << getEp();
  if (getMtpDrafts() < 0)
    return emitOpError("MTP draft count must be non-negative, got ")
           << getMtpDrafts();

  ArrayRef<int64_t> layers = getStageLayers();
  if (static_cast<int64_t>(layers.size()) != getPp())
    return emitOpError("layers lists ")
           << layers.size() << " stages, but pp is " << getPp()
           << "; each stage has one layer count";
  for (auto [stage, count] : llvm::enumerate(layers))
    if (count < 1)
      return emitOpError("stage ") << stage << " holds " << count
                                   << " layers; every stage holds at least 1";

  // Degrees come from the IR: guard the product against overflow.
  int64_t perInstance = 0, needed = 0;
  bool overflow = llvm::MulOverflow(getPp(), getEp(), perInstance) ||
                  llvm::MulOverflow(getInstances(), perInstance, needed);
  if (overflow || needed > getChips()) {
    InFlightDiagnostic d = emitOpError()
                           << getInstances() << " instances of pp " << getPp()
                           << " x ep " << getEp() << " need ";
    if (overflow)
      d << "more chips than an int64 counts";
    else
      d << needed << " chips";
    return d << ", but the job has " << getChips();
  }
  return success();
}

LogicalResult
ServeLayoutOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyNames(*this, symbolTable, "job", getJobAttr(), "plx.serve");
}

//===----------------------------------------------------------------------===//
// ServePolicyOp
//===----------------------------------------------------------------------===//

LogicalResult ServePolicyOp::verify() {
  if (getWaveInterval() < 1)
    return emitOpError("wave interval must be at least 1 decode round, got ")
           << getWaveInterval();
  if (failed(verifySeconds(*this, "job completion time", getJct())) ||
      failed(verifySeconds(*this, "mean turn time", getTurnMean())) ||
      failed(verifySeconds(*this, "P50 turn time", getTurnP50())) ||
      failed(verifySeconds(*this, "P90 turn time", getTurnP90())) ||
      failed(verifySeconds(*this, "P99 turn time", getTurnP99())))
    return failure();
  if (getTurnP50() > getTurnP90())
    return emitOpError("P50 turn time ")
           << formatDecimal(getTurnP50()) << " exceeds the P90 "
           << formatDecimal(getTurnP90()) << "; percentiles grow with the rank";
  if (getTurnP90() > getTurnP99())
    return emitOpError("P90 turn time ")
           << formatDecimal(getTurnP90()) << " exceeds the P99 "
           << formatDecimal(getTurnP99()) << "; percentiles grow with the rank";
  return success();
}

LogicalResult
ServePolicyOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyNames(*this, symbolTable, "layout", getLayoutAttr(),
                     ServeLayoutOp::getOperationName());
}
