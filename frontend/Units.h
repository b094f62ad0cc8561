//===- Units.h - Units of .plx quantities -----------------------*- C++ -*-===//
//
// A .plx quantity is a number and an optional unit: `32`, `384Ki`, `80 GB`,
// `400 Gb/s`, `989 TFLOPS`, `10 ms`. Decimal prefixes K M G T P are powers of
// 10^3, binary prefixes Ki Mi Gi Ti Pi powers of 2^10. Values are converted
// to base units: tokens/items, bytes, bytes/s, FLOP/s, seconds.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_FRONTEND_UNITS_H
#define PLEXUS_FRONTEND_UNITS_H

#include <optional>
#include <string>
#include <string_view>

namespace plexus::frontend {

enum class Dimension {
  Count,          // plain numbers: layers, tokens, ranks (prefix only)
  Bytes,          // B, GB, GiB ...
  BytesPerSecond, // GB/s, GiB/s, Gb/s (bits are divided by 8) ...
  FlopsPerSecond, // FLOPS, TFLOPS, TFLOP/s ...
  Seconds,        // s, ms, us, ns
  Dollars,        // USD, KUSD, MUSD (prices of network parts)
};

/// What a unit spelling means: its dimension and the factor to base units.
struct UnitInfo {
  Dimension dimension = Dimension::Count;
  double scale = 1.0;
};

/// Looks a unit spelling up ("" is a plain count). Returns nullopt for an
/// unknown spelling.
std::optional<UnitInfo> lookupUnit(std::string_view unit);

/// "a count", "a size in bytes", ... for diagnostics.
const char *dimensionDescription(Dimension dimension);
/// An example spelling of the dimension for diagnostics ("80 GB").
const char *dimensionExample(Dimension dimension);

/// Formats a byte count for humans with IEC units: "1.50 GiB".
std::string formatBytes(double bytes);

/// Formats a value in base units the way a user would write it: "1 MiB"
/// when it is a whole number of binary units, else "80 GB", "1 KB/s",
/// "1 MFLOPS", "86400 s", "100000" (counts).
std::string formatQuantity(double value, Dimension dimension);

} // namespace plexus::frontend

#endif // PLEXUS_FRONTEND_UNITS_H
