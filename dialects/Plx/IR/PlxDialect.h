//===- PlxDialect.h - The plx (spec) dialect --------------------*- C++ -*-===//
//
// Including this header gives the plx dialect, its enums, attributes and ops.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_DIALECTS_PLX_IR_PLXDIALECT_H
#define PLEXUS_DIALECTS_PLX_IR_PLXDIALECT_H

#include "dialects/Common/ChipCatalog.h"
#include "dialects/Common/Faults.h"
#include "dialects/Common/Prices.h"
#include "dialects/Common/TopologyShape.h"
#include "dialects/Common/TransformerShape.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/bit.h"

namespace plexus::plx {
/// A double attribute parameter. LLVM has no hash for double, so attribute
/// storage keys hold this wrapper; it converts to and from double freely.
struct Real {
  double value = 0;
  Real() = default;
  Real(double v) : value(v) {}
  operator double() const { return value; }
  bool operator==(const Real &other) const {
    return llvm::bit_cast<uint64_t>(value) ==
           llvm::bit_cast<uint64_t>(other.value);
  }
  bool operator==(double other) const { return *this == Real(other); }
  bool operator!=(const Real &other) const { return !(*this == other); }
  bool operator!=(double other) const { return !(*this == other); }
};
inline llvm::hash_code hash_value(Real r) {
  return llvm::hash_value(llvm::bit_cast<uint64_t>(r.value));
}
/// Prints the shortest decimal that reads back as exactly `value`, always
/// with a '.' so that MLIR lexes it as a float ("0.8", "5.0e+10", "3.0").
void printReal(mlir::AsmPrinter &printer, double value);
/// The text printReal prints.
std::string formatReal(double value);

template <typename PrinterT>
inline std::enable_if_t<std::is_base_of<mlir::AsmPrinter, PrinterT>::value,
                        PrinterT &>
operator<<(PrinterT &printer, Real r) {
  printReal(printer, r.value);
  return printer;
}

/// Parses a float or integer literal as a double (attribute parameters).
mlir::FailureOr<Real> parseF64Param(mlir::AsmParser &parser);
/// Parses `true` or `false`.
mlir::FailureOr<bool> parseBoolParam(mlir::AsmParser &parser);
} // namespace plexus::plx

namespace mlir {
/// Lets ArrayRefParameter<"Real"> parse its elements.
template <> struct FieldParser<::plexus::plx::Real> {
  static FailureOr<::plexus::plx::Real> parse(AsmParser &parser) {
    return ::plexus::plx::parseF64Param(parser);
  }
};
} // namespace mlir

#include "dialects/Plx/IR/PlxOpsDialect.h.inc"
#include "dialects/Plx/IR/PlxOpsEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Plx/IR/PlxOpsAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/Plx/IR/PlxOps.h.inc"

#endif // PLEXUS_DIALECTS_PLX_IR_PLXDIALECT_H
