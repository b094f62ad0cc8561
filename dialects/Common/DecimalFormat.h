//===- DecimalFormat.h - Short decimal text for f64 values ------*- C++ -*-===//
//
// The plx, plan and rt dialects print times, bandwidths and FLOP rates as
// the shortest decimal that reads back as the same double, always with a
// '.' so that MLIR lexes it as a float ("0.8", "5.0e+10", "3.0"). MLIR's
// default ("8.000000e-01") is exact as well, but hard to read. Header-only,
// so that no dialect library depends on another.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_DIALECTS_COMMON_DECIMALFORMAT_H
#define PLEXUS_DIALECTS_COMMON_DECIMALFORMAT_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace plexus::dialects {

/// The shortest round-tripping decimal of a finite `value`, with a '.'.
inline std::string formatShortestDecimal(double value) {
  char buffer[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value)
      break;
  }
  std::string text(buffer);
  if (text.find('.') == std::string::npos) {
    size_t exponent = text.find_first_of("eE");
    text.insert(exponent == std::string::npos ? text.size() : exponent, ".0");
  }
  return text;
}

/// `custom<Decimal>` for f64 FloatAttrs: parse any float literal.
inline mlir::ParseResult parseDecimalAttr(mlir::OpAsmParser &parser,
                                          mlir::FloatAttr &attr) {
  double value = 0;
  if (parser.parseFloat(value))
    return mlir::failure();
  attr = parser.getBuilder().getF64FloatAttr(value);
  return mlir::success();
}

/// `custom<Decimal>` printer. Non-finite values (which verifiers reject)
/// still print as text that reads back: MLIR's hexadecimal form.
inline void printDecimalAttr(mlir::OpAsmPrinter &printer,
                             mlir::FloatAttr attr) {
  double value = attr.getValueAsDouble();
  if (!std::isfinite(value)) {
    printer.printFloat(attr.getValue());
    return;
  }
  printer << formatShortestDecimal(value);
}

} // namespace plexus::dialects

#endif // PLEXUS_DIALECTS_COMMON_DECIMALFORMAT_H
