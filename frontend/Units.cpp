//===- Units.cpp - Units of .plx quantities -------------------------------===//
#include "frontend/Units.h"

#include <cmath>
#include <cstdio>

using namespace plexus::frontend;

namespace {
struct Prefix {
  std::string_view spelling;
  double factor;
};
// Longest spellings first so that "Ki" wins over "K".
constexpr Prefix kPrefixes[] = {
    {"Ki", 1024.0},
    {"Mi", 1024.0 * 1024.0},
    {"Gi", 1024.0 * 1024.0 * 1024.0},
    {"Ti", 1024.0 * 1024.0 * 1024.0 * 1024.0},
    {"Pi", 1024.0 * 1024.0 * 1024.0 * 1024.0 * 1024.0},
    {"K", 1e3},
    {"M", 1e6},
    {"G", 1e9},
    {"T", 1e12},
    {"P", 1e15},
    {"", 1.0},
};
} // namespace

std::optional<UnitInfo> plexus::frontend::lookupUnit(std::string_view unit) {
  // Time units have their own (sub-unit) prefixes.
  if (unit == "s")
    return UnitInfo{Dimension::Seconds, 1.0};
  if (unit == "ms")
    return UnitInfo{Dimension::Seconds, 1e-3};
  if (unit == "us")
    return UnitInfo{Dimension::Seconds, 1e-6};
  if (unit == "ns")
    return UnitInfo{Dimension::Seconds, 1e-9};

  for (const Prefix &prefix : kPrefixes) {
    if (unit.substr(0, prefix.spelling.size()) != prefix.spelling)
      continue;
    std::string_view base = unit.substr(prefix.spelling.size());
    if (base.empty())
      return UnitInfo{Dimension::Count, prefix.factor};
    if (base == "B")
      return UnitInfo{Dimension::Bytes, prefix.factor};
    if (base == "B/s")
      return UnitInfo{Dimension::BytesPerSecond, prefix.factor};
    if (base == "b/s")
      return UnitInfo{Dimension::BytesPerSecond, prefix.factor / 8.0};
    if (base == "FLOPS" || base == "FLOP/s")
      return UnitInfo{Dimension::FlopsPerSecond, prefix.factor};
    if (base == "USD" && prefix.spelling.find('i') == std::string_view::npos)
      return UnitInfo{Dimension::Dollars, prefix.factor};
  }
  return std::nullopt;
}

const char *plexus::frontend::dimensionDescription(Dimension dimension) {
  switch (dimension) {
  case Dimension::Count:
    return "a plain number";
  case Dimension::Bytes:
    return "a size in bytes";
  case Dimension::BytesPerSecond:
    return "a bandwidth";
  case Dimension::FlopsPerSecond:
    return "a compute rate";
  case Dimension::Seconds:
    return "a time";
  case Dimension::Dollars:
    return "a price";
  }
  return "a number";
}

const char *plexus::frontend::dimensionExample(Dimension dimension) {
  switch (dimension) {
  case Dimension::Count:
    return "32 or 384Ki";
  case Dimension::Bytes:
    return "80 GB or 80 GiB";
  case Dimension::BytesPerSecond:
    return "900 GB/s or 400 Gb/s";
  case Dimension::FlopsPerSecond:
    return "989 TFLOPS";
  case Dimension::Seconds:
    return "2 s or 150 ms";
  case Dimension::Dollars:
    return "600 USD";
  }
  return "";
}

std::string plexus::frontend::formatBytes(double bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int unit = 0;
  while (std::fabs(bytes) >= 1024.0 && unit < 5) {
    bytes /= 1024.0;
    ++unit;
  }
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), unit == 0 ? "%.0f %s" : "%.2f %s",
                bytes, units[unit]);
  return buffer;
}

std::string plexus::frontend::formatQuantity(double value,
                                             Dimension dimension) {
  char buffer[64];
  if (dimension == Dimension::Dollars) {
    std::snprintf(buffer, sizeof(buffer), "%.6g USD", value);
    return buffer;
  }
  if (dimension == Dimension::Count || dimension == Dimension::Seconds) {
    std::snprintf(buffer, sizeof(buffer), "%.6g%s", value,
                  dimension == Dimension::Seconds ? " s" : "");
    return buffer;
  }
  const char *base = dimension == Dimension::Bytes            ? "B"
                     : dimension == Dimension::BytesPerSecond ? "B/s"
                                                              : "FLOPS";
  // A whole number of binary units reads best in them (memory sizes).
  if (dimension != Dimension::FlopsPerSecond && value >= 1024) {
    const char *iec[] = {"Ki", "Mi", "Gi", "Ti", "Pi"};
    double unit = 1024.0 * 1024 * 1024 * 1024 * 1024;
    // The largest binary unit not above the value, if it divides it.
    int i = 4;
    while (i > 0 && value < unit) {
      unit /= 1024;
      --i;
    }
    if (std::fmod(value, unit) == 0) {
      std::snprintf(buffer, sizeof(buffer), "%.0f %s%s", value / unit, iec[i],
                    base);
      return buffer;
    }
  }
  const char *si[] = {"", "K", "M", "G", "T", "P"};
  int i = 0;
  while (std::fabs(value) >= 1000.0 && i < 5) {
    value /= 1000.0;
    ++i;
  }
  std::snprintf(buffer, sizeof(buffer), "%.6g %s%s", value, si[i], base);
  return buffer;
}
