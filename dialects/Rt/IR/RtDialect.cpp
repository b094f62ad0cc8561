//===- RtDialect.cpp - The rt (per-rank programs) dialect -----------------===//
#include "dialects/Rt/IR/RtDialect.h"

#include "mlir/IR/Builders.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace plexus::rt;

#include "dialects/Rt/IR/RtOpsDialect.cpp.inc"
#include "dialects/Rt/IR/RtOpsEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Rt/IR/RtOpsAttrs.cpp.inc"

#include "dialects/Rt/IR/RtOpsInterfaces.cpp.inc"

void RtDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/Rt/IR/RtOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Rt/IR/RtOpsAttrs.cpp.inc"
      >();
}
