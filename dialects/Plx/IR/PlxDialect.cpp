//===- PlxDialect.cpp - The plx (spec) dialect ----------------------------===//
#include "dialects/Plx/IR/PlxDialect.h"

#include "dialects/Common/DecimalFormat.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace mlir;
using namespace plexus::plx;

#include "dialects/Plx/IR/PlxOpsDialect.cpp.inc"

void PlxDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/Plx/IR/PlxOps.cpp.inc"
      >();
  registerAttributes();
}

FailureOr<Real> plexus::plx::parseF64Param(AsmParser &parser) {
  // Whole numbers may be written without a dot ("mu = 7").
  int64_t whole = 0;
  OptionalParseResult integer = parser.parseOptionalInteger(whole);
  if (integer.has_value()) {
    if (failed(*integer))
      return failure();
    return Real(static_cast<double>(whole));
  }
  double value = 0;
  if (parser.parseFloat(value))
    return failure();
  return Real(value);
}

std::string plexus::plx::formatReal(double value) {
  if (std::isnan(value))
    return "0x7FF8000000000000";
  if (std::isinf(value))
    return value > 0 ? "0x7FF0000000000000" : "0xFFF0000000000000";
  return plexus::dialects::formatShortestDecimal(value);
}

void plexus::plx::printReal(AsmPrinter &printer, double value) {
  printer << formatReal(value);
}

FailureOr<bool> plexus::plx::parseBoolParam(AsmParser &parser) {
  if (succeeded(parser.parseOptionalKeyword("true")))
    return true;
  if (succeeded(parser.parseOptionalKeyword("false")))
    return false;
  return parser.emitError(parser.getCurrentLocation(),
                          "expected 'true' or 'false'");
}
