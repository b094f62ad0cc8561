//===- PlanPipelineOps.td - DPP pipelines of chunks --------*- tablegen -*-===//
//
// A training step planned by dynamic pipeline parallelism (DPP):
// plan.step > plan.pipeline > plan.chunk, plan.remat. The plain C++ form is
// step::PipelinedStepPlan (passes/StepModel/PipelinePlan.h).
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PLAN_PIPELINE_OPS_TD
#define PLEXUS_PLAN_PIPELINE_OPS_TD

def Plan_ChunkKind : I32EnumAttr<"ChunkKind", "what a DPP chunk holds", [
    I32EnumAttrCase<"packed", 0>, I32EnumAttrCase<"split", 1>,
    I32EnumAttrCase<"hybrid", 2>]> {
  let cppNamespace = "::plexus::plan";
}

//===----------------------------------------------------------------------===//
// plan.pipeline
//===----------------------------------------------------------------------===//

def Plan_PipelineOp : Plan_Op<"pipeline", [
    HasParent<"StepOp">, SingleBlock, NoTerminator]> {
  let summary = "One 1F1B pipeline of a DPP step: its chunks and recompute";
  let description = [{
    A `plan.pipeline` is one 1F1B pipeline of a step planned by dynamic
    pipeline parallelism (DPP). The ranks of the step form `stages`
    pipeline stages of `sp` consecutive ranks each; inside a stage the
    ranks run Ulysses sequence parallelism with ZeRO-3. The step's
    pipelines run one after another; each pushes its chunks (`plan.chunk`,
    DPP's micro-batches) through all stages.

    The body lists the chunks in forward order, then optionally one
    `plan.remat` per stage saying how many of the stage's layers recompute
    for each chunk (a stage without one recomputes nothing).

    Attributes (written `index`, `stages`, `sp`, `nsplit`, `time`,
    `bubble`, `backward`):
    - `index`: position in the step; the i-th pipeline has index i.
    - `stages`: d_p, the number of stages (at least 1).
    - `sp_degree`: d_s, the Ulysses degree inside a stage (at least 1);
      `stages * sp` is the step's world size.
    - `n_split`: N_split, the number of chunks of the pipeline's longest
      sequence (at least 1, at most the number of chunks). Stage p runs
      min(n, stages - p - 2 + nsplit) forwards before its first backward.
    - `time`: the modeled makespan in seconds, recompute included.
    - `bubble`: the modeled idle share of the stages, in [0, 1].
    - `backward`: the forward positions of the chunks in the order their
      backwards run, a permutation of 0..n-1 that visits each split
      sequence's chunks in reverse.

    The verifier checks the attributes, that the body holds at least one
    chunk, that chunks come before the `plan.remat` ops, that chunk indices
    count 0, 1, 2, ... in order, that `backward` is a permutation of the
    chunk positions, and that every `plan.remat` names a distinct stage of
    the pipeline and gives one count per chunk. The step checks what spans
    pipelines (the world size, token coverage, the order of split
    sequences).

    ```mlir
    plan.pipeline 0 stages 4 sp 8 nsplit 3 time 40.1 bubble 0.12 backward [2, 1, 0, 3] {
      plan.chunk 0 split slices [3:0-40000] time 0.91 mem 1000
      plan.chunk 1 split slices [3:40000-60000] time 0.9 mem 1000
      plan.chunk 2 hybrid slices [3:60000-90000, 1:0-3000] time 0.9 mem 1000
      plan.chunk 3 packed slices [0:0-70000, 2:0-500] time 0.8 mem 1000
      plan.remat stage 0 layers [3, 3, 2, 0]
      plan.remat stage 1 layers [2, 2, 1, 0]
    }
    ```
  }];
  let arguments = (ins Plan_Int64Attr:$index, Plan_Int64Attr:$stages,
                       Plan_Int64Attr:$sp_degree, Plan_Int64Attr:$n_split,
                       Plan_F64Attr:$time, Plan_F64Attr:$bubble,
                       DenseI64ArrayAttr:$backward);
  let regions = (region SizedRegion<1>:$bodyRegion);
  let assemblyFormat = [{
    $index `stages` $stages `sp` $sp_degree `nsplit` $n_split
    `time` custom<Decimal>($time) `bubble` custom<Decimal>($bubble)
    `backward` $backward attr-dict-with-keyword $bodyRegion
  }];
  let skipDefaultBuilders = 1;
  let builders = [
    // Creates the pipeline with an empty body block, ready for chunks.
    OpBuilder<(ins "int64_t":$index, "int64_t":$stages, "int64_t":$spDegree,
                   "int64_t":$nSplit, "double":$time, "double":$bubble,
                   "::llvm::ArrayRef<int64_t>":$backward)>
  ];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

//===----------------------------------------------------------------------===//
// plan.chunk
//===----------------------------------------------------------------------===//

def Plan_ChunkOp : Plan_Op<"chunk", [HasParent<"PipelineOp">]> {
  let summary = "One chunk of a pipeline: slices of the step's sequences";
  let description = [{
    A `plan.chunk` is one DPP micro-batch: the tokens of some of the step's
    sequences that go through the pipeline's stages together. A slice
    `seq:begin-end` is the tokens [begin, end) of sequence `seq`; its
    attention also reads the `begin` tokens of the sequence before it (its
    context), which earlier chunks of the pipeline processed.

    Kinds:
    - `packed`: whole sequences, every slice `seq:0-length`;
    - `split`: exactly one slice of a sequence, not the whole of it;
    - `hybrid`: first the last slice of a split sequence (begin > 0, end
      at the sequence's length), then at least one whole sequence.

    Attributes (written `index`, kind, `slices`, `time`, `mem`):
    - `index`: the chunk's forward position in its pipeline; the i-th
      chunk has index i.
    - `kind`: `packed`, `split` or `hybrid`.
    - `slices`: the slices, stored flat as (seq, begin, end) triples; seq
      and begin are non-negative, end > begin, and no sequence appears
      twice in one chunk.
    - `time`: the modeled forward and backward of the chunk on one stage in
      seconds, without recompute.
    - `mem`: the modeled activation bytes per rank without recompute
      (non-negative).

    The checks that need the sequence lengths (whole sequences, tails) run
    in the step's verifier when the step has `lengths`.

    ```mlir
    plan.chunk 2 hybrid slices [3:60000-90000, 1:0-3000] time 0.9 mem 1000
    ```
  }];
  let arguments = (ins Plan_Int64Attr:$index, Plan_ChunkKind:$kind,
                       DenseI64ArrayAttr:$slices, Plan_F64Attr:$time,
                       Plan_Int64Attr:$mem);
  let assemblyFormat = [{
    $index $kind `slices` custom<SliceList>($slices)
    `time` custom<Decimal>($time) `mem` $mem attr-dict
  }];
  let extraClassDeclaration = [{
    /// The number of slices (the flat list holds three values per slice).
    size_t getNumSlices() { return getSlices().size() / 3; }
    /// Slice i as (sequence, begin, end).
    std::tuple<int64_t, int64_t, int64_t> getSlice(size_t i) {
      ::llvm::ArrayRef<int64_t> flat = getSlices();
      return {flat[3 * i], flat[3 * i + 1], flat[3 * i + 2]};
    }
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// plan.remat
//===----------------------------------------------------------------------===//

def Plan_RematOp : Plan_Op<"remat", [HasParent<"PipelineOp">]> {
  let summary = "How many layers one stage recomputes for each chunk";
  let description = [{
    `layers[k]` is the number of the stage's layers whose activations are
    checkpointed for the chunk at forward position k and recomputed before
    its backward. A pipeline holds at most one `plan.remat` per stage, with
    one count per chunk; a stage without one recomputes nothing.

    Attributes (written `stage`, `layers`):
    - `stage`: the pipeline stage, in [0, stages).
    - `layers`: one non-negative count per chunk, in forward order.

    ```mlir
    plan.remat stage 0 layers [3, 3, 2, 0]
    ```
  }];
  let arguments = (ins Plan_Int64Attr:$stage, DenseI64ArrayAttr:$layers);
  let assemblyFormat = "`stage` $stage `layers` $layers attr-dict";
  let hasVerifier = 1;
}

#endif // PLEXUS_PLAN_PIPELINE_OPS_TD
