//===- PlanDialect.cpp - The plan (decisions) dialect ---------------------===//
#include "dialects/Plan/IR/PlanDialect.h"

using namespace mlir;
using namespace plexus::plan;

#include "dialects/Plan/IR/PlanOpsDialect.cpp.inc"

void PlanDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/Plan/IR/PlanOps.cpp.inc"
      >();
}
