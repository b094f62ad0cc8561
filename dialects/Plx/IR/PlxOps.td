//===- PlxOps.td - Ops of the plx (spec) dialect -----------*- tablegen -*-===//
#ifndef PLEXUS_PLX_OPS_TD
#define PLEXUS_PLX_OPS_TD

include "dialects/Plx/IR/PlxAttrs.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Plx_OverlongAttr : EnumAttr<Plx_Dialect, Plx_Overlong, "overlong"> {
  let assemblyFormat = "$value";
}
def Plx_IntraNodeAttr : EnumAttr<Plx_Dialect, Plx_IntraNode, "intra_node"> {
  let assemblyFormat = "$value";
}

def Plx_DistributionAttr : AnyAttrOf<[Plx_LognormalAttr, Plx_HistogramAttr,
                                      Plx_LengthsFileAttr]>;
def Plx_AgentSourceAttr : AnyAttrOf<[Plx_TrajectoriesAttr,
                                     Plx_SyntheticAgentAttr]>;
def Plx_TopologyAttr : AnyAttrOf<[Plx_RailXAttr, Plx_FatTreeAttr,
                                  Plx_RailOptimizedAttr, Plx_TorusAttr]>;

def Plx_ModelOp : Plx_Op<"model", [Symbol]> {
  let summary = "A transformer model";
  let description = [{
    ```mlir
    plx.model @gpt7b <layers = 32, hidden = 4096, heads = 32, kv_heads = 32,
                      head_dim = 128, ffn = 16384, vocab = 50257, mlp = gelu>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Plx_TransformerAttr:$shape);
  let assemblyFormat = "$sym_name $shape attr-dict";
}

def Plx_DatasetOp : Plx_Op<"dataset", [Symbol]> {
  let summary = "The sequence lengths a training job sees";
  let description = [{
    Lengths come from a distribution or a file; lengths above `clamp` tokens
    are dropped or truncated (`overlong`), and every length is rounded up to
    a multiple of `padding`. `clamp = 0` means no limit.

    ```mlir
    plx.dataset @wiki #plx.lengths_file<"data/wikipedia-lengths.txt",
        count = 1000000, max = 1823777> clamp 393216 padding 128 overlong drop
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Plx_DistributionAttr:$source,
                       Plx_I64Attr:$clamp, Plx_I64Attr:$padding,
                       Plx_OverlongAttr:$overlong);
  let assemblyFormat = [{
    $sym_name $source `clamp` $clamp `padding` $padding
    `overlong` custom<Overlong>($overlong) attr-dict
  }];
  let hasVerifier = 1;
}

def Plx_WorkloadOp : Plx_Op<"workload", [Symbol]> {
  let summary = "The agent tasks a serving job replays";
  let arguments = (ins SymbolNameAttr:$sym_name, Plx_AgentSourceAttr:$source);
  let assemblyFormat = "$sym_name $source attr-dict";
}

def Plx_FabricOp : Plx_Op<"fabric", [Symbol]> {
  let summary = "Chips, nodes and the network between them";
  let description = [{
    `nodes` nodes of `chips_per_node` chips each; chips inside a node are
    joined by `intra_node` links of `intra_node_bandwidth` bytes/s per chip
    and direction (an integer);
    nodes by the `topology`. The verifier applies the sizing rules of
    `dialects/Common/TopologyShape.h`. `prices`, when present, is the price
    table the network's cost is counted at (else the defaults of
    `dialects/Common/Prices.h`).

    ```mlir
    plx.fabric @cluster chip <name = "A100_40GB", ...> nodes 8 x 8
        intra_node nvswitch 600000000000
        topology #plx.fat_tree<radix = 16, tiers = 2, link_bandwidth = 5.0e10>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Plx_ChipAttr:$chip,
                       Plx_I64Attr:$nodes, Plx_I64Attr:$chips_per_node,
                       Plx_IntraNodeAttr:$intra_node,
                       Plx_I64Attr:$intra_node_bandwidth,
                       Plx_TopologyAttr:$topology,
                       OptionalAttr<Plx_FaultsAttr>:$failed,
                       OptionalAttr<Plx_PricesAttr>:$prices);
  let assemblyFormat = [{
    $sym_name `chip` $chip `nodes` $nodes `x` $chips_per_node
    `intra_node` custom<IntraNode>($intra_node) $intra_node_bandwidth
    `topology` $topology (`failed` $failed^)? (`prices` $prices^)?
    attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getChips() { return getNodes() * getChipsPerNode(); }
    /// The topology as the plain C++ fabric library sees it.
    ::plexus::fabric::TopologyShape getTopologyShape();
    /// The failed parts (empty when the op has no `failed` list).
    ::plexus::fabric::FabricFaults getFaults();
    /// The network's price table (the defaults when the op has no `prices`).
    ::plexus::fabric::PriceTable getPriceTable();
  }];
}

def Plx_TrainOp : Plx_Op<"train", [Symbol,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "A training job";
  let description = [{
    Trains `model` on `data` over `fabric`: `batch` sequences a step for
    `steps` steps; `seed` drives every random draw. `chips`, when present,
    is how many of the fabric's chips the job uses (jobs sharing a fabric
    get disjoint chips); otherwise it uses them all.

    ```mlir
    plx.train @job model @gpt7b data @wiki fabric @cluster batch 512 steps 1
        seed 42 strategy <sp = adaptive, zero = 3>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, FlatSymbolRefAttr:$model,
                       FlatSymbolRefAttr:$data, FlatSymbolRefAttr:$fabric,
                       OptionalAttr<Plx_I64Attr>:$chips,
                       Plx_I64Attr:$batch, Plx_I64Attr:$steps, Plx_I64Attr:$seed,
                       Plx_TrainStrategyAttr:$strategy);
  let assemblyFormat = [{
    $sym_name `model` $model `data` $data `fabric` $fabric
    (`chips` $chips^)? `batch` $batch
    `steps` $steps `seed` $seed `strategy` $strategy attr-dict
  }];
  let extraClassDeclaration = [{
    /// Chips the job uses: `chips`, or the whole fabric.
    int64_t getJobChips(FabricOp fabric) {
      return getChips() ? *getChips() : fabric.getChips();
    }
  }];
  let hasVerifier = 1;
}

def Plx_ServeOp : Plx_Op<"serve", [Symbol,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "A serving job judged by job completion time";
  let arguments = (ins SymbolNameAttr:$sym_name, FlatSymbolRefAttr:$model,
                       FlatSymbolRefAttr:$workload, FlatSymbolRefAttr:$fabric,
                       OptionalAttr<Plx_I64Attr>:$chips,
                       Plx_I64Attr:$seed, Plx_ServeStrategyAttr:$strategy);
  let assemblyFormat = [{
    $sym_name `model` $model `workload` $workload `fabric` $fabric
    (`chips` $chips^)? `seed` $seed `strategy` $strategy attr-dict
  }];
  let extraClassDeclaration = [{
    /// Chips the job uses: `chips`, or the whole fabric.
    int64_t getJobChips(FabricOp fabric) {
      return getChips() ? *getChips() : fabric.getChips();
    }
  }];
  let hasVerifier = 1;
}

#endif // PLEXUS_PLX_OPS_TD
