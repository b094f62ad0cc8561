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

/// How much slower a chip computes while a collective runs beside it on the
/// communication stream (the collective's kernels take SMs and HBM
/// bandwidth): compute under overlap takes (1 + this) times as long. 0.189
/// is the mean slowdown Lee et al. measured over GPT and Llama training
/// kernels on A100, H100, MI250 and MI210 (arXiv 2507.03114, "average
/// computational slowdown of 18.9%, with a maximum of 40.0%");
/// docs/cost-model.md, "Overlap".
inline constexpr double kDefaultOverlapComputeSlowdown = 0.189;
/// The share of its bandwidth a collective on the communication stream
/// achieves while compute runs beside it; docs/cost-model.md, "Overlap",
/// gives the source and the calibration rows that set it.
inline constexpr double kDefaultOverlapCommEfficiency = 0.9;

/// What the chip's kernels achieve (docs/cost-model.md, "Compute time by
/// kind of kernel"; cost::ComputeRates).
///
/// GEMMs: the maximum achievable matmul FLOP/s that Stas Bekman's
/// mamf-finder measured on large BF16 GEMMs is the ceiling (A100 SXM 267.9
/// of 312 TFLOP/s, H100 SXM 792.1 of 989); a training step's GEMMs reach a
/// share of it (kernel gaps, tile shapes of tp-split weights, framework
/// overhead). That share is set by two calibration rows (Megatron-LM SC'21
/// 18B and 145B on A100: 0.65 of the peak balances their errors with GEMMs
/// timed by their tiles and waves; bench/calibration/SOURCES.md) and
/// carried to the other chips.
inline constexpr double kAmpereMamf = 267.9 / 312;
inline constexpr double kHopperMamf = 792.1 / 989;
inline constexpr double kAmpereGemmEfficiency = 0.65;
inline constexpr double kTrainingShareOfMamf =
    kAmpereGemmEfficiency / kAmpereMamf;
/// The defaults are Hopper's. Fused attention 0.55 of the peak is our
/// reading of FlashAttention-2's published 50-73 % forward (its backward
/// lower) and FlashAttention-3's up to 75 % forward on H100; memory-bound
/// kernels 0.75 of HBM bandwidth, the serving model's memory efficiency.
inline constexpr double kDefaultGemmEfficiency =
    kHopperMamf * kTrainingShareOfMamf;
inline constexpr double kDefaultAttentionEfficiency = 0.55;
inline constexpr double kDefaultMemoryEfficiency = 0.75;

/// GEMMs by shape (cost::gemmSeconds; docs/cost-model.md, "GEMMs by shape
/// and dtype"). cuBLAS computes a GEMM's output in tiles, one thread block
/// per tile, a wave of one tile per SM at a time (NVIDIA's "Matrix
/// Multiplication Background User's Guide", sections 2.3 and 3: tile and
/// wave quantization). We model one tile, 128 x 128, among the tiles that
/// guide lists as cuBLAS's usual ones; under it the shape at which
/// mamf-finder measured H100's ceiling (6144 x 17920 x 2816: 6,720 tiles,
/// 50.9 waves on 132 SMs) loses 0.2 %, so gemm_efficiency stays the share
/// of a whole-wave GEMM. A GEMM of fewer tiles than SMs splits its k over
/// up to SMs / tiles thread blocks, each at least 256 deep (four of the
/// 64-deep k steps of a Hopper or Ampere tile; our assumption).
inline constexpr int64_t kGemmTileRows = 128;
inline constexpr int64_t kGemmTileCols = 128;
inline constexpr int64_t kGemmSplitKMinDepth = 256;

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
  /// Compute and a stream collective running together (above).
  double overlapComputeSlowdown = kDefaultOverlapComputeSlowdown;
  double overlapCommEfficiency = kDefaultOverlapCommEfficiency;
  /// Achieved fractions: of the dense BF16 peak on large GEMMs and on a
  /// fused attention core, of HBM bandwidth on memory-bound kernels.
  double gemmEfficiency = kDefaultGemmEfficiency;
  double attentionEfficiency = kDefaultAttentionEfficiency;
  double memoryEfficiency = kDefaultMemoryEfficiency;
  /// Streaming multiprocessors (NVIDIA's datasheets and architecture
  /// whitepapers); 0 when unknown: GEMMs are then timed without tile and
  /// wave quantization.
  int64_t smCount = 0;
};

/// All catalog entries, in a fixed order (stable output).
const std::vector<ChipSpec> &chipCatalog();

/// Looks a chip up by its catalog key (case-sensitive, as written in .plx).
std::optional<ChipSpec> findChip(std::string_view name);

/// The catalog keys joined by ", " (for "did you mean" style diagnostics).
std::string chipCatalogKeys();

} // namespace plexus::cost

#endif // PLEXUS_DIALECTS_COMMON_CHIPCATALOG_H
