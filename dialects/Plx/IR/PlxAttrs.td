//===- PlxAttrs.td - Attributes of the plx dialect ---------*- tablegen -*-===//
#ifndef PLEXUS_PLX_ATTRS_TD
#define PLEXUS_PLX_ATTRS_TD

include "dialects/Plx/IR/PlxEnums.td"

//===----------------------------------------------------------------------===//
// Model
//===----------------------------------------------------------------------===//

def Plx_TransformerAttr : Plx_Attr<"Transformer", "transformer"> {
  let summary = "Shape of a dense or MoE decoder-only transformer";
  let description = [{
    `head_dim` is always stored (derived as hidden / heads when the source
    leaves it out). A model is MoE when `experts` is non-zero; its first
    `dense_layers` layers use the dense MLP of width `ffn`, the others route
    each token to `top_k` of `experts` experts of width `moe_ffn` plus
    `shared_experts` always-active ones. `mtp_layers` multi-token-prediction
    layers follow the trunk. The verifier applies the shape rules of
    `dialects/Common/TransformerShape.h`.

    ```mlir
    #plx.transformer<layers = 32, hidden = 4096, heads = 32, kv_heads = 8,
                     head_dim = 128, ffn = 14336, vocab = 128256>
    ```
  }];
  let parameters = (ins
    "int64_t":$layers, "int64_t":$hidden, "int64_t":$heads,
    "int64_t":$kv_heads, "int64_t":$head_dim, "int64_t":$ffn,
    "int64_t":$vocab,
    Plx_DefaultEnum<Plx_MlpKind, "::plexus::plx::MlpKind::swiglu">:$mlp,
    Plx_DefaultBool<"false">:$tied_embeddings,
    Plx_DefaultI64<"0">:$experts, Plx_DefaultI64<"0">:$top_k,
    Plx_DefaultI64<"0">:$shared_experts, Plx_DefaultI64<"0">:$moe_ffn,
    Plx_DefaultI64<"0">:$dense_layers, Plx_DefaultI64<"0">:$mtp_layers,
    Plx_DefaultEnum<Plx_DType, "::plexus::plx::DType::bf16">:$dtype);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The same shape as the plain C++ cost model sees it.
    ::plexus::cost::TransformerShape toShape() const;
  }];
}

//===----------------------------------------------------------------------===//
// Datasets
//===----------------------------------------------------------------------===//

def Plx_LognormalAttr : Plx_Attr<"Lognormal", "lognormal"> {
  let summary = "Sequence lengths drawn from a log-normal distribution";
  let description = [{
    Lengths are `exp(N(mu, sigma^2))` tokens, rounded up to at least one
    token. `mu` and `sigma` are the mean and standard deviation of the
    length's natural logarithm.
  }];
  let parameters = (ins Plx_F64Param:$mu, Plx_F64Param:$sigma);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Plx_HistogramAttr : Plx_Attr<"Histogram", "histogram"> {
  let summary = "Sequence lengths drawn from a histogram";
  let description = [{
    Bin `i` covers lengths `(bounds[i-1], bounds[i]]` (the first bin starts
    at 1 token) and is chosen with probability proportional to `weights[i]`;
    within a bin the length is uniform.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$bounds,
                        ArrayRefParameter<"::plexus::plx::Real">:$weights);
  let assemblyFormat =
      "`<` `bounds` `=` `[` $bounds `]` `,` `weights` `=` `[` $weights `]` `>`";
  let genVerifyDecl = 1;
}

def Plx_LengthsFileAttr : Plx_Attr<"LengthsFile", "lengths_file"> {
  let summary = "Real sequence lengths, one integer a line, in a text file";
  let description = [{
    `path` is resolved against the directory of the `.plx` file that named
    it. `count` and `max` are read from the file when the spec is imported,
    so that the checked spec states what it will see.
  }];
  let parameters = (ins StringRefParameter<"path">:$path, "int64_t":$count,
                        "int64_t":$max);
  let assemblyFormat = "`<` $path `,` `count` `=` $count `,` `max` `=` $max `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Agent workloads
//===----------------------------------------------------------------------===//

def Plx_TrajectoriesAttr : Plx_Attr<"Trajectories", "trajectories"> {
  let summary = "Recorded agent trajectories in a JSONL file";
  let description = [{
    One task a line (format: docs/serving.md). `tasks` is the number of
    lines, read at import; `concurrency` is how many tasks run at once.
  }];
  let parameters = (ins StringRefParameter<"path">:$path, "int64_t":$tasks,
                        "int64_t":$concurrency);
  let assemblyFormat =
      "`<` $path `,` `tasks` `=` $tasks `,` `concurrency` `=` $concurrency `>`";
  let genVerifyDecl = 1;
}

def Plx_SyntheticAgentAttr : Plx_Attr<"SyntheticAgent", "synthetic_agent"> {
  let summary = "Parameters of seeded synthetic agent trajectories";
  let description = [{
    Means of a seeded generator (docs/serving.md): `turns` per task, `prompt`
    tokens of the first turn, `new_tokens` per later turn, `output_tokens`
    per turn, `tool_latency` in seconds between turns, contexts capped at
    `max_len` tokens.
  }];
  let parameters = (ins EnumParameter<Plx_AgentPreset>:$preset,
      "int64_t":$tasks, "int64_t":$concurrency, "int64_t":$turns,
      "int64_t":$prompt, "int64_t":$new_tokens, "int64_t":$output_tokens,
      Plx_F64Param:$tool_latency, "int64_t":$max_len);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Chips and topologies
//===----------------------------------------------------------------------===//

def Plx_ChipAttr : Plx_Attr<"Chip", "chip"> {
  let summary = "Peak figures of the fabric's chip";
  let description = [{
    `name` is the catalog key, `custom`, or a catalog key followed by the
    overridden fields ("H100 (modified: hbm)"); figures are in FLOP/s, bytes
    and bytes/s, resolved from the catalog and any overrides in the source.
    `nvlink_bandwidth` counts both directions, as NVIDIA quotes it.
    `overlap_slowdown` is how much longer compute takes while a collective
    runs beside it on the communication stream, `overlap_comm_efficiency`
    the share of its bandwidth that collective achieves meanwhile;
    `gemm_efficiency` and `attention_efficiency` the fractions of the BF16
    peak that large GEMMs and a fused attention core achieve,
    `memory_efficiency` the fraction of HBM bandwidth memory-bound kernels
    achieve (`dialects/Common/ChipCatalog.h`; each printed only when not the
    default). `sm_count` is the chip's streaming multiprocessors, over which
    GEMMs are timed by their tiles and waves (`cost::gemmSeconds`); 0 (not
    printed) times them without that quantization.
  }];
  let parameters = (ins StringRefParameter<"catalog key">:$name,
      Plx_F64Param:$bf16_flops, Plx_F64Param:$fp8_flops, "int64_t":$hbm_bytes,
      Plx_F64Param:$hbm_bandwidth, Plx_F64Param:$nvlink_bandwidth,
      Plx_DefaultF64<"::plexus::cost::kDefaultOverlapComputeSlowdown">:$overlap_slowdown,
      Plx_DefaultF64<"::plexus::cost::kDefaultOverlapCommEfficiency">:$overlap_comm_efficiency,
      Plx_DefaultF64<"::plexus::cost::kDefaultGemmEfficiency">:$gemm_efficiency,
      Plx_DefaultF64<"::plexus::cost::kDefaultAttentionEfficiency">:$attention_efficiency,
      Plx_DefaultF64<"::plexus::cost::kDefaultMemoryEfficiency">:$memory_efficiency,
      Plx_DefaultI64<"0">:$sm_count);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    ::plexus::cost::ChipSpec toChipSpec() const;
  }];
}

def Plx_RailXAttr : Plx_Attr<"RailX", "railx"> {
  let summary = "RailX: a 2D grid of nodes joined by per-row and per-column OCS rails";
  let parameters = (ins "int64_t":$rows, "int64_t":$cols, "int64_t":$rails,
      Plx_F64Param:$link_bandwidth, Plx_DefaultBool<"false">:$directed);
  let assemblyFormat = "`<` struct(params) `>`";
}

def Plx_FatTreeAttr : Plx_Attr<"FatTree", "fat_tree"> {
  let summary = "A k-ary fat-tree of 2 or 3 tiers";
  let parameters = (ins "int64_t":$radix, "int64_t":$tiers,
      Plx_F64Param:$link_bandwidth, Plx_DefaultF64<"1.0">:$oversubscription);
  let assemblyFormat = "`<` struct(params) `>`";
}

def Plx_RailOptimizedAttr : Plx_Attr<"RailOptimized", "rail_optimized"> {
  let summary = "Rail-optimized: one leaf group per rail plus a spine";
  let parameters = (ins "int64_t":$rails, "int64_t":$radix,
      Plx_F64Param:$link_bandwidth, Plx_DefaultF64<"1.0">:$oversubscription);
  let assemblyFormat = "`<` struct(params) `>`";
}

def Plx_TorusAttr : Plx_Attr<"Torus", "torus"> {
  let summary = "A 2D or 3D torus of nodes";
  let parameters = (ins ArrayRefParameter<"int64_t">:$dims,
      Plx_F64Param:$link_bandwidth);
  let assemblyFormat =
      "`<` `dims` `=` `[` $dims `]` `,` `link_bandwidth` `=` $link_bandwidth `>`";
}

def Plx_FaultsAttr : Plx_Attr<"Faults", "faults"> {
  let summary = "Failed chips, inter-node links and OCS ports of a fabric";
  let description = [{
    `chip(node, index)`, `link(node, node)`, and `port(row|col, index, rail,
    position)`: the port of the OCS of rail `rail` of row (column) `index`
    that faces the node at `position` along it. Placement and the circuit
    table route around them.

    ```mlir
    #plx.faults<chip(3, 1), link(4, 5), port(row, 2, 0, 7)>
    ```

    Stored flattened: `chips` as (node, index) pairs, `links` as node pairs,
    `ports` as (axis, index, rail, position) with axis 0 = row, 1 = col.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$chips,
                        ArrayRefParameter<"int64_t">:$links,
                        ArrayRefParameter<"int64_t">:$ports);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    ::plexus::fabric::FabricFaults toFaults() const;
  }];
}

def Plx_PricesAttr : Plx_Attr<"Prices", "prices"> {
  let summary = "The price table a fabric's network is bought at";
  let description = [{
    USD per optical circuit switch port, ports of one OCS, USD per fibre,
    and one tuple per line-rate class, ascending: (Gb/s per direction,
    transceiver, electrical switch port, switch radix, NIC port). The rules
    are `dialects/Common/Prices.h`'s; a fabric without the attribute is
    priced at that file's defaults.

    ```mlir
    #plx.prices<ocs_port = 300.0, ocs_radix = 300, fibre = 50.0,
                speeds = [(400.0, 350.0, 400.0, 128.0, 0.0),
                          (800.0, 600.0, 800.0, 64.0, 0.0)]>
    ```

    Stored flattened: `speeds` holds five numbers per class.
  }];
  let parameters = (ins Plx_F64Param:$ocs_port, "int64_t":$ocs_radix,
                        Plx_F64Param:$fibre,
                        ArrayRefParameter<"::plexus::plx::Real">:$speeds);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    ::plexus::fabric::PriceTable toPriceTable() const;
    static PricesAttr get(::mlir::MLIRContext *context,
                          const ::plexus::fabric::PriceTable &table);
  }];
}

//===----------------------------------------------------------------------===//
// Strategies
//===----------------------------------------------------------------------===//

def Plx_TrainStrategyAttr : Plx_Attr<"TrainStrategy", "train_strategy"> {
  let summary = "What the user fixed and what the planner chooses for training";
  let description = [{
    `sp = static` uses `sp_degree` for every sequence; `adaptive` lets the
    FlexSP planner choose per micro-batch; `best_homogeneous` picks one
    degree per batch. `pp = dynamic` lets the DPP planner chunk and group
    pipelines, `static` uses `pp_degree`. `memory_limit` is the usable bytes
    per chip (0: the chip's HBM); `memory_reserve` the bytes of HBM held
    back for the CUDA context, NCCL buffers and fragmentation (-1: the
    default of `cost::defaultMemoryReserveBytes`). `micro_batch` is the
    number of sequences each group (model replica) takes per micro-batch
    (0: as many as memory holds). `eager_attention` keeps the attention
    scores of an unfused kernel without checkpointing (default: a fused,
    flash-style kernel that keeps only the softmax statistics).
    `virtual_stages` is the model chunks per pipeline stage of interleaved
    1F1B (Megatron-LM's --virtual-pipeline-model-parallel-size; 1: plain
    1F1B). `zero_prefetch` is how many layers ahead ZeRO-3 gathers weights
    on the communication stream: 1 (the default) gathers the next layer
    beside the current one's compute; 0 gathers each layer on demand, after
    the stream's earlier collectives (one NCCL queue per device), so
    ZeRO-3's traffic is exposed (docs/cost-model.md, "ZeRO-3 prefetch").
    `checkpoint_layers` limits `checkpoint` to the model's first this many
    layers, the others keeping every activation (0: every layer; Megatron's
    block recompute on an unpipelined model).
  }];
  let parameters = (ins
      Plx_DefaultEnum<Plx_SpMode, "::plexus::plx::SpMode::static_">:$sp,
      Plx_DefaultI64<"1">:$sp_degree,
      Plx_DefaultEnum<Plx_PpMode, "::plexus::plx::PpMode::static_">:$pp,
      Plx_DefaultI64<"1">:$pp_degree, Plx_DefaultI64<"1">:$tp,
      Plx_DefaultI64<"1">:$cp,
      Plx_DefaultEnum<Plx_Checkpoint, "::plexus::plx::Checkpoint::none">:$checkpoint,
      Plx_DefaultI64<"3">:$zero, Plx_DefaultI64<"0">:$memory_limit,
      Plx_DefaultI64<"0">:$micro_batch, Plx_DefaultI64<"-1">:$memory_reserve,
      Plx_DefaultBool<"false">:$eager_attention,
      Plx_DefaultI64<"1">:$virtual_stages,
      Plx_DefaultI64<"1">:$zero_prefetch,
      Plx_DefaultI64<"0">:$checkpoint_layers);
  let assemblyFormat = "`<` struct(params) `>`";
}

def Plx_ServeStrategyAttr : Plx_Attr<"ServeStrategy", "serve_strategy"> {
  let summary = "Serving layout and policy knobs";
  let description = [{
    `wave_interval = 0` lets the planner choose the prefill-wave interval
    for the workload, and `pp = 0` or `ep = 0` the degree. `mtp_drafts` is the number of draft tokens per decode
    step (0 disables MTP). `choose_attention` lets the planner choose
    between DP-attention and TP attention (`dp_attention` is then false);
    `kv_aware_routing` places each turn on the DP-attention rank of least
    prefill plus in-flight tokens instead of pinning its task to one rank
    (it needs `dp_attention` or `choose_attention`).
  }];
  let parameters = (ins Plx_DefaultI64<"1">:$pp, Plx_DefaultI64<"1">:$ep,
      Plx_DefaultBool<"false">:$dp_attention, Plx_DefaultI64<"0">:$mtp_drafts,
      Plx_DefaultI64<"0">:$wave_interval,
      Plx_DefaultF64<"0.8">:$memory_utilization,
      Plx_DefaultBool<"false">:$choose_attention,
      Plx_DefaultBool<"false">:$kv_aware_routing);
  let genVerifyDecl = 1;
  let assemblyFormat = "`<` struct(params) `>`";
}

#endif // PLEXUS_PLX_ATTRS_TD
