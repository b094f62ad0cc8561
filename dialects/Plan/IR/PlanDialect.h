//===- PlanDialect.h - The plan (decisions) dialect -------------*- C++ -*-===//
//
// Including this header gives the plan dialect and all of its ops.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_DIALECTS_PLAN_IR_PLANDIALECT_H
#define PLEXUS_DIALECTS_PLAN_IR_PLANDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"

#include "dialects/Plan/IR/PlanOpsDialect.h.inc"
#include "dialects/Plan/IR/PlanOpsEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Plan/IR/PlanOpsAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/Plan/IR/PlanOps.h.inc"

#endif // PLEXUS_DIALECTS_PLAN_IR_PLANDIALECT_H
