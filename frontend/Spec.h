//===- Spec.h - A checked, resolved .plx spec -------------------*- C++ -*-===//
//
// What the semantic pass produces: every declaration with its fields
// resolved to base units, defaults filled in, references checked. MLIRGen
// turns it into plx IR one op per declaration, in source order.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_FRONTEND_SPEC_H
#define PLEXUS_FRONTEND_SPEC_H

#include "dialects/Common/ChipCatalog.h"
#include "dialects/Common/Faults.h"
#include "dialects/Common/Prices.h"
#include "dialects/Common/TopologyShape.h"
#include "dialects/Common/TransformerShape.h"
#include "frontend/Diagnostics.h"

#include <cstdint>
#include <string>
#include <vector>

namespace plexus::frontend {

struct ModelSpec {
  std::string name;
  SourceLocation loc;
  cost::TransformerShape shape;
};

struct DatasetSpec {
  enum class Source { Lognormal, Histogram, LengthsFile };
  std::string name;
  SourceLocation loc;
  Source source = Source::Lognormal;
  double mu = 0, sigma = 0;    // lognormal
  std::vector<int64_t> bounds; // histogram
  std::vector<double> weights; // histogram
  std::string path;            // lengths file, resolved
  int64_t count = 0, max = 0;  // lengths file statistics
  int64_t clamp = 0;           // 0: no limit
  int64_t padding = 1;
  bool truncate = false; // overlong: truncate instead of drop
};

struct WorkloadSpec {
  enum class Source { Trajectories, Synthetic };
  enum class Preset { SweBench, BrowseComp, Custom };
  std::string name;
  SourceLocation loc;
  Source source = Source::Synthetic;
  std::string path; // trajectories file, resolved
  Preset preset = Preset::Custom;
  int64_t tasks = 0, concurrency = 0, turns = 0, prompt = 0, newTokens = 0,
          outputTokens = 0, maxLen = 0;
  double toolLatency = 0; // seconds
};

struct FabricSpec {
  enum class IntraNode { NVSwitch, Mesh, Ring };
  std::string name;
  SourceLocation loc;
  cost::ChipSpec chip; // name is the catalog key or "custom"
  int64_t nodes = 0, chipsPerNode = 0;
  IntraNode intraNode = IntraNode::NVSwitch;
  double intraNodeBandwidth = 0; // bytes/s per chip
  fabric::TopologyShape topology;
  fabric::FabricFaults faults; // the `failed = [...]` list
  fabric::PriceTable prices;   // the `prices { ... }` block over the defaults
  bool pricesGiven = false;    // the fabric has a `prices` block
  int64_t chips() const { return nodes * chipsPerNode; }
};

struct TrainSpec {
  enum class Sp { Static, Adaptive, BestHomogeneous };
  enum class Pp { Static, Dynamic };
  enum class Checkpoint { None, Selective, Full, Adaptive, AttentionMlp };
  std::string name;
  SourceLocation loc;
  std::string model, data, fabric;
  int64_t chips = 0; // chips of the fabric the job uses; 0: all of them
  int64_t batch = 0, steps = 1, seed = 0;
  Sp sp = Sp::Static;
  int64_t spDegree = 1;
  Pp pp = Pp::Static;
  int64_t ppDegree = 1, tp = 1, cp = 1, zero = 3, memoryLimit = 0;
  int64_t microBatch = 0; // sequences per micro-batch and group; 0 = memory
  int64_t memoryReserve = -1; // bytes held back per chip; -1 = the default
  bool eagerAttention = false; // attention = eager (default: fused)
  int64_t virtualStages = 1;   // model chunks per stage (interleaved 1F1B)
  int64_t zeroPrefetch = 1;    // layers ZeRO-3 gathers ahead (0: on demand)
  int64_t checkpointLayers = 0; // checkpoint only the first N layers; 0: all
  Checkpoint checkpoint = Checkpoint::None;
};

struct ServeSpec {
  std::string name;
  SourceLocation loc;
  std::string model, workload, fabric;
  int64_t chips = 0; // chips of the fabric the job uses; 0: all of them
  int64_t seed = 0;
  int64_t pp = 1, ep = 1, mtpDrafts = 0, waveInterval = 0;
  bool dpAttention = false;
  bool chooseAttention = false; // dp_attention = auto
  bool kvAwareRouting = false;  // dp_routing = kv_aware
  double memoryUtilization = 0.8;
};

/// The whole checked spec. `order` lists the declarations in source order as
/// (kind, index into the kind's vector).
struct Spec {
  enum class Kind { Model, Dataset, Workload, Fabric, Train, Serve };
  std::vector<ModelSpec> models;
  std::vector<DatasetSpec> datasets;
  std::vector<WorkloadSpec> workloads;
  std::vector<FabricSpec> fabrics;
  std::vector<TrainSpec> trains;
  std::vector<ServeSpec> serves;
  std::vector<std::pair<Kind, size_t>> order;
};

} // namespace plexus::frontend

#endif // PLEXUS_FRONTEND_SPEC_H
