//===- ChipCatalog.h - Published figures of accelerator chips ---*- C++ -*-===//
//
// The built-in chip catalog: peak dense BF16/FP8 FLOP/s, HBM capacity and
// bandwidth, NVLink bandwidth. Figures and their sources: docs/cost-model.md.
// Plain C++, no MLIR: the frontend, the dialects and every pass may use it.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_DIALECTS_COMMON_CHIPCATALOG_H
#define PLEXUS_DIALECTS_COMMON_CHIPCATALOG_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace plexus::cost {

/// Peak figures of one accelerator (or CPU socket). Units are base SI units:
/// FLOP/s, bytes, bytes/s. A figure of 0 means "not supported" (FP8 on A100).
struct ChipSpec {
  std::string name;           // catalog key as written in .plx, e.g. "H100"
  std::string displayName;    // e.g. "NVIDIA H100 SXM5 80GB"
  double bf16Flops = 0;       // dense BF16 tensor FLOP/s (no sparsity)
  double fp8Flops = 0;        // dense FP8 tensor FLOP/s, 0 when unsupported
  int64_t hbmBytes = 0;       // device memory capacity in bytes
  double hbmBandwidth = 0;    // device memory bandwidth, bytes/s
  double nvlinkBandwidth = 0; // per-chip NVLink bandwidth, bytes/s, both
                              // directions summed (NVIDIA's convention)
};

/// All catalog entries, in a fixed order (stable output).
const std::vector<ChipSpec> &chipCatalog();

/// Looks a chip up by its catalog key (case-sensitive, as written in .plx).
std::optional<ChipSpec> findChip(std::string_view name);

/// The catalog keys joined by ", " (for "did you mean" style diagnostics).
std::string chipCatalogKeys();

} // namespace plexus::cost

#endif // PLEXUS_DIALECTS_COMMON_CHIPCATALOG_H
