//===- JobRules.h - Does a job fit its model and fabric ---------*- C++ -*-===//
//
// Cross-declaration rules of train and serve jobs: degrees that must divide
// heads, experts or the chip count, and whether one layer can be held on one
// chip at all. Shared by the frontend's semantic pass (which reports them at
// source locations) and by the plx dialect's verifiers.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_DIALECTS_COMMON_JOBRULES_H
#define PLEXUS_DIALECTS_COMMON_JOBRULES_H

#include "dialects/Common/ChipCatalog.h"
#include "dialects/Common/TransformerShape.h"

#include <cstdint>
#include <string>
#include <vector>

namespace plexus::cost {

/// A violated job rule: the strategy field it is about ("sp", "pp", "tp",
/// "cp", "zero", "ep", "memory_limit", "memory_utilization", "chips" when the
/// chip count itself is not positive, "model" for whole-model problems) and
/// a message.
struct JobProblem {
  std::string field;
  std::string message;
};

struct TrainDegrees {
  int64_t sp = 1; // static Ulysses degree; 0 when the planner chooses
  int64_t pp = 1; // static pipeline degree; 0 when the planner chooses
  int64_t tp = 1;
  int64_t cp = 1;
  int64_t zero = 3;             // ZeRO stage 0..3
  int64_t memoryLimitBytes = 0; // usable bytes per chip; 0 = chip's HBM
  int64_t memoryReserveBytes = -1; // held back per chip; -1 = the default
};

/// What a training process cannot use of a chip's HBM, by default: the CUDA
/// context with cuBLAS/cuDNN workspaces and NCCL's communication buffers
/// (a fixed kMemoryReserveFixedBytes) plus the caching allocator's
/// fragmentation (kMemoryReserveFraction of the HBM). docs/cost-model.md
/// has the sources; `memory_reserve` in a strategy overrides it.
constexpr int64_t kMemoryReserveFixedBytes = int64_t(1) << 30; // 1 GiB
constexpr double kMemoryReserveFraction = 0.05;
int64_t defaultMemoryReserveBytes(const ChipSpec &chip);

/// The bytes a training job may use per chip: the chip's HBM less the
/// reserve (`reserveBytes`, or the default when negative), and no more
/// than `memoryLimitBytes` when that is set (> 0). Never negative.
int64_t usableMemoryBytes(const ChipSpec &chip, int64_t memoryLimitBytes,
                          int64_t reserveBytes);

/// Bytes one chip needs to hold the weights of the largest layer in the
/// model's dtype, plus (for training) gradients and Adam states: the
/// mixed-precision 16 bytes per parameter, before any sharding. Layers are
/// the unit that cannot be split further by PP; TP/EP/ZeRO shard it, so the
/// rule divides by the degrees that shard a layer (tp, ep, and under ZeRO-3
/// the data-parallel width).
int64_t layerResidentBytes(const TransformerShape &s, bool training,
                           int64_t shardWays);

/// Training bytes of the largest layer on one chip under ZeRO stage `zero`
/// (0..3), tensor parallelism `tp` and a data-parallel (ZeRO) width
/// `dataParallel`. The 16 bytes per parameter are 2 (bf16 weights) + 2
/// (gradients) + 12 (fp32 master, Adam m and v); stage 1 shards the 12 over
/// the data-parallel width, stage 2 also the gradients, stage 3 everything.
/// Stages 0 and 3 equal layerResidentBytes(s, true, tp) and
/// layerResidentBytes(s, true, tp * dataParallel).
int64_t trainLayerResidentBytes(const TransformerShape &s, int64_t tp,
                                int64_t zero, int64_t dataParallel);

std::vector<JobProblem> checkTrainJob(const TransformerShape &model,
                                      const ChipSpec &chip, int64_t chips,
                                      const TrainDegrees &degrees);

struct ServeDegrees {
  int64_t pp = 1;                 ///< 0: the serving planner chooses
  int64_t ep = 1;                 ///< 0: the serving planner chooses
  double memoryUtilization = 0.8; // fraction of HBM usable for weights + KV
};

std::vector<JobProblem> checkServeJob(const TransformerShape &model,
                                      const ChipSpec &chip, int64_t chips,
                                      const ServeDegrees &degrees);

} // namespace plexus::cost

#endif // PLEXUS_DIALECTS_COMMON_JOBRULES_H
