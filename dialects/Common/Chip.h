//===- Chip.h - One chip of a fabric ----------------------------*- C++ -*-===//
//
// A chip is named by its node (row-major on a RailX grid) and its index in
// the node. Faults, the collective models and placement all use this type.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_DIALECTS_COMMON_CHIP_H
#define PLEXUS_DIALECTS_COMMON_CHIP_H

#include <cstdint>

namespace plexus::fabric {

struct ChipRef {
  int64_t node = 0;
  int64_t local = 0;
  bool operator==(const ChipRef &o) const {
    return node == o.node && local == o.local;
  }
  bool operator!=(const ChipRef &o) const { return !(*this == o); }
  bool operator<(const ChipRef &o) const {
    return node != o.node ? node < o.node : local < o.local;
  }
};

} // namespace plexus::fabric

#endif // PLEXUS_DIALECTS_COMMON_CHIP_H
