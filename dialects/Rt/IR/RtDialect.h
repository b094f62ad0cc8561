//===- RtDialect.h - The rt (per-rank programs) dialect ---------*- C++ -*-===//
//
// Including this header gives the rt dialect, its enums, attributes,
// interfaces and ops.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_DIALECTS_RT_IR_RTDIALECT_H
#define PLEXUS_DIALECTS_RT_IR_RTDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"

#include "dialects/Rt/IR/RtOpsDialect.h.inc"
#include "dialects/Rt/IR/RtOpsEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Rt/IR/RtOpsAttrs.h.inc"

#include "dialects/Rt/IR/RtOpsInterfaces.h.inc"

#define GET_OP_CLASSES
#include "dialects/Rt/IR/RtOps.h.inc"

#endif // PLEXUS_DIALECTS_RT_IR_RTDIALECT_H
