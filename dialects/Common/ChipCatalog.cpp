//===- ChipCatalog.cpp - Published figures of accelerator chips -----------===//
//
// The figures below are vendor peak numbers: dense tensor-core throughput
// (the datasheets' "with sparsity" figures halved), memory capacity in
// decimal gigabytes (GB = 1e9 bytes) and bandwidths in bytes/s with NVLink
// counted in both directions, as NVIDIA quotes it. Each figure and the
// datasheet it comes from are listed in docs/cost-model.md; keep the two in
// step.
//
//===----------------------------------------------------------------------===//

#include "dialects/Common/ChipCatalog.h"

namespace plexus::cost {

namespace {

constexpr double kTera = 1e12;
constexpr double kGiga = 1e9;
constexpr int64_t kGB = 1000LL * 1000 * 1000;
constexpr int64_t kGiB = 1024LL * 1024 * 1024;

ChipSpec makeChip(const char *name, const char *displayName, double bf16TFlops,
                  double fp8TFlops, int64_t hbmBytes, double hbmGBps,
                  double nvlinkGBps, int64_t smCount) {
  ChipSpec chip;
  chip.smCount = smCount;
  chip.name = name;
  chip.displayName = displayName;
  chip.bf16Flops = bf16TFlops * kTera;
  chip.fp8Flops = fp8TFlops * kTera;
  chip.hbmBytes = hbmBytes;
  chip.hbmBandwidth = hbmGBps * kGiga;
  chip.nvlinkBandwidth = nvlinkGBps * kGiga;
  return chip;
}

// The last figure is the SM count: 108 on A100 (NVIDIA A100 Tensor Core
// GPU Architecture whitepaper), 132 on H100 SXM5 and the chips on its die
// (H800, H200, GH200; NVIDIA H100 Tensor Core GPU Architecture whitepaper),
// 148 on B200 (CUDA's device query on an HGX B200 GPU, two dies of 74).
std::vector<ChipSpec> buildCatalog() {
  std::vector<ChipSpec> chips;
  // Ampere: no FP8 tensor cores, hence fp8 = 0.
  chips.push_back(makeChip("A100_40GB", "NVIDIA A100 SXM4 40GB", 312, 0,
                           40 * kGB, 1555, 600, 108));
  chips.push_back(makeChip("A100_80GB", "NVIDIA A100 SXM4 80GB", 312, 0,
                           80 * kGB, 2039, 600, 108));
  // The export variant of A100 80GB: same die and memory, NVLink cut to 400.
  chips.push_back(makeChip("A800", "NVIDIA A800 SXM4 80GB", 312, 0, 80 * kGB,
                           2039, 400, 108));
  // Ampere's GEMMs (kAmpereGemmEfficiency, ChipCatalog.h).
  for (ChipSpec &chip : chips)
    chip.gemmEfficiency = kAmpereGemmEfficiency;
  // Hopper.
  chips.push_back(makeChip("H100", "NVIDIA H100 SXM5 80GB", 989, 1979, 80 * kGB,
                           3350, 900, 132));
  // The export variant of H100 SXM: same tensor throughput, NVLink 400.
  chips.push_back(makeChip("H800", "NVIDIA H800 SXM5 80GB", 989, 1979, 80 * kGB,
                           3350, 400, 132));
  chips.push_back(makeChip("H200", "NVIDIA H200 SXM 141GB", 989, 1979,
                           141 * kGB, 4800, 900, 132));
  // The GPU half of the Grace Hopper superchip, 96 GB HBM3 version; the
  // Grace CPU's LPDDR5X is not counted as device memory.
  chips.push_back(makeChip("GH200", "NVIDIA GH200 Grace Hopper (96GB HBM3)",
                           989, 1979, 96 * kGB, 4000, 900, 132));
  // Blackwell, one GPU of an HGX B200 board (1000 W configuration); no
  // published mamf-finder figure in our sources, so Hopper's rates.
  chips.push_back(makeChip("B200", "NVIDIA B200 (HGX B200) 180GB", 2250, 4500,
                           180 * kGB, 8000, 1800, 148));
  // A generic server CPU socket for tiny end-to-end runs (see
  // docs/cost-model.md): modest round numbers, not a product.
  chips.push_back(
      makeChip("CPU", "generic CPU socket", 2, 0, 64 * kGiB, 100, 0, 0));
  // The generic socket keeps one round rate for all of its work.
  chips.back().gemmEfficiency = 0.5;
  chips.back().attentionEfficiency = 0.5;
  return chips;
}

} // namespace

const std::vector<ChipSpec> &chipCatalog() {
  static const std::vector<ChipSpec> catalog = buildCatalog();
  return catalog;
}

std::optional<ChipSpec> findChip(std::string_view name) {
  for (const ChipSpec &chip : chipCatalog())
    if (chip.name == name)
      return chip;
  return std::nullopt;
}

std::string chipCatalogKeys() {
  std::string keys;
  for (const ChipSpec &chip : chipCatalog()) {
    if (!keys.empty())
      keys += ", ";
    keys += chip.name;
  }
  return keys;
}

} // namespace plexus::cost
