//===- PlxDialect.cpp - The plx (spec) dialect ----------------------------===//
#include "dialects/Plx/IR/PlxDialect.h"

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
  double value = 0;
  if (parser.parseFloat(value))
    return failure();
  return Real(value);
}

FailureOr<bool> plexus::plx::parseBoolParam(AsmParser &parser) {
  if (succeeded(parser.parseOptionalKeyword("true")))
    return true;
  if (succeeded(parser.parseOptionalKeyword("false")))
    return false;
  return parser.emitError(parser.getCurrentLocation(),
                          "expected 'true' or 'false'");
}
