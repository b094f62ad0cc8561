//===- ByteText.h - Sizes for people, in the unit that fits -----*- C++ -*-===//
//
// "30.0 GB", "55.2 MB", "512.0 KB", "96 B": decimal units, one decimal, the
// largest unit the size reaches, so that a CPU job's memory message never
// reads "needs 0.0 GB, holds 0.0 GB". Header-only and dialect-free.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_DIALECTS_COMMON_BYTETEXT_H
#define PLEXUS_DIALECTS_COMMON_BYTETEXT_H

#include <cmath>
#include <cstdio>
#include <string>

namespace plexus {

inline std::string bytesText(double bytes) {
  char buffer[64];
  const double magnitude = std::fabs(bytes);
  if (magnitude >= 1e12)
    std::snprintf(buffer, sizeof(buffer), "%.1f TB", bytes / 1e12);
  else if (magnitude >= 1e9)
    std::snprintf(buffer, sizeof(buffer), "%.1f GB", bytes / 1e9);
  else if (magnitude >= 1e6)
    std::snprintf(buffer, sizeof(buffer), "%.1f MB", bytes / 1e6);
  else if (magnitude >= 1e3)
    std::snprintf(buffer, sizeof(buffer), "%.1f KB", bytes / 1e3);
  else
    std::snprintf(buffer, sizeof(buffer), "%.0f B", bytes);
  return buffer;
}

} // namespace plexus

#endif // PLEXUS_DIALECTS_COMMON_BYTETEXT_H
