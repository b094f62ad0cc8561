//===- RtOps.td - Ops of the rt (per-rank programs) dialect *- tablegen -*-===//
//
// rt.program holds one rank's ordered list of compute, collective and
// point-to-point ops.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_RT_OPS_TD
#define PLEXUS_RT_OPS_TD

include "dialects/Rt/IR/RtDialect.td"
include "dialects/Rt/IR/RtInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"

//===----------------------------------------------------------------------===//
// rt.program
//===----------------------------------------------------------------------===//

def Rt_ProgramOp : Rt_Op<"program", [
    Symbol, IsolatedFromAbove, SingleBlock, NoTerminator]> {
  let summary = "The program of one rank";
  let description = [{
    An `rt.program` is everything one rank does in a step, in order: the ops
    of its body run one after the other (communication ops block until
    their peers take part). `rank` is the rank that runs it (non-negative);
    the symbol is conventionally `@rank_<rank>`. The ops of the rt dialect
    other than `rt.program` may only appear directly inside a program, and
    read the program's rank to check their peers and groups.

    `resident` (optional, non-negative) is the memory in bytes the rank
    holds for the whole step (model states, buffers), before any op's `mem`.

    ```mlir
    rt.program @rank_0 rank 0 {
      rt.compute fwd layers [0, 16) stage 0 seqs [0, 1] time 0.004
      rt.send to 1 bytes 4096 tag 3
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Rt_Int64Attr:$rank,
                       OptionalAttr<Rt_Int64Attr>:$resident);
  let regions = (region SizedRegion<1>:$bodyRegion);
  let assemblyFormat = [{
    $sym_name `rank` $rank (`resident` $resident^)?
    attr-dict-with-keyword $bodyRegion
  }];
  let skipDefaultBuilders = 1;
  let builders = [
    // Creates the program with an empty body block, ready for its ops.
    OpBuilder<(ins "::llvm::StringRef":$symName, "int64_t":$rank)>
  ];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// rt.model and rt.batch: what the programs run on
//===----------------------------------------------------------------------===//

def Rt_ModelOp : Rt_Op<"model", [HasParent<"::mlir::ModuleOp">]> {
  let summary = "The model the programs train";
  let description = [{
    The decoder the programs of the module run, enough for a runtime to
    build it: `layers`, `hidden`, `heads`, `kv_heads` (grouped K/V heads;
    they divide `heads`), `head_dim`, the MLP's inner width `ffn` and its
    kind `mlp` (`swiglu` or `gelu`), `vocab`, `tied` when the output head
    is the token embedding, `element_bytes` (the bytes per element the
    plan's byte counts assume) and `seed` (weights are drawn from it). At
    most one per module; every size is positive.

    ```mlir
    rt.model layers 4 hidden 256 heads 4 kv_heads 4 head_dim 64 ffn 1024 mlp swiglu vocab 1024 element_bytes 4 seed 1
    ```
  }];
  let arguments = (ins Rt_Int64Attr:$layers, Rt_Int64Attr:$hidden,
                       Rt_Int64Attr:$heads, Rt_Int64Attr:$kv_heads,
                       Rt_Int64Attr:$head_dim, Rt_Int64Attr:$ffn,
                       StrAttr:$mlp, Rt_Int64Attr:$vocab, UnitAttr:$tied,
                       Rt_Int64Attr:$element_bytes, Rt_Int64Attr:$seed);
  let assemblyFormat = [{
    `layers` $layers `hidden` $hidden `heads` $heads `kv_heads` $kv_heads
    `head_dim` $head_dim `ffn` $ffn `mlp` $mlp `vocab` $vocab
    (`tied` $tied^)? `element_bytes` $element_bytes `seed` $seed attr-dict
  }];
  let hasVerifier = 1;
}

def Rt_BatchOp : Rt_Op<"batch", [HasParent<"::mlir::ModuleOp">]> {
  let summary = "The sequences of the step and where they are cut";
  let description = [{
    The batch the programs run: `lengths[s]` is the number of tokens of
    sequence `s` (positive); `seed` draws their token ids. `cuts` (optional)
    lists the interior cut points of split sequences as pairs `s, c`
    (sorted by sequence, then position, each c in (0, lengths[s])): a
    sequence with cuts c_1 < ... < c_{K-1} has K slices, slice k spanning
    [c_k, c_{k+1}) with c_0 = 0 and c_K its length; its context (the
    tokens it attends to before its own) is c_k. The `slices` indices of
    `rt.compute`, `rt.send` and `rt.recv` count these slices. At most one
    per module.

    ```mlir
    rt.batch seed 1 lengths [800, 72, 248] cuts [0, 304, 0, 566]
    ```
  }];
  let arguments = (ins Rt_Int64Attr:$seed, DenseI64ArrayAttr:$lengths,
                       OptionalAttr<DenseI64ArrayAttr>:$cuts);
  let assemblyFormat =
      "`seed` $seed `lengths` $lengths (`cuts` $cuts^)? attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The number of slices of sequence `seq` (1 when it is not cut).
    int64_t sliceCount(int64_t seq);
  }];
}

//===----------------------------------------------------------------------===//
// rt.group: a communicator, its members named once
//===----------------------------------------------------------------------===//

def Rt_GroupOp : Rt_Op<"group", [Symbol, HasParent<"::mlir::ModuleOp">]> {
  let summary = "A communicator: its kind and its ranks in ring order";
  let description = [{
    Declares a communicator once for the whole module: its symbol is its
    name (an id, conventionally `"<kind>:<first>-<last>"`; nothing reads
    meaning into it), `kind` what it is for (`sp`, `tp`, `cp`, `zero` or
    `dp`, see `#rt<comm_kind>`) and `ranks` its members in ring order:
    non-empty, non-negative and distinct. Collectives and Ulysses compute
    ops name it (`@"zero:0-7"`) instead of listing its members, so the
    module's size grows with the ops and the distinct groups, not with ops
    times group sizes.

    ```mlir
    rt.group @"zero:0-7" zero [0, 1, 2, 3, 4, 5, 6, 7]
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Rt_CommKindAttr:$kind,
                       DenseI64ArrayAttr:$ranks);
  let assemblyFormat = "$sym_name custom<CommKind>($kind) $ranks attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// rt.compute
//===----------------------------------------------------------------------===//

def Rt_ComputeOp : Rt_Op<"compute", [HasParent<"ProgramOp">,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "A forward, backward or recompute pass over a layer range";
  let description = [{
    An `rt.compute` runs one pass (`kind`: `fwd`, `bwd` or `recompute`) of
    the layers `[layer_begin, layer_end)` (end exclusive, non-empty,
    `layer_begin` >= 0) of pipeline stage `stage` (>= 0) over the listed
    sequences (`seqs`, or slices of them; ids non-negative, at least one,
    no repeats). `time` is the modeled time in seconds (finite,
    non-negative).

    Optional, written after the time in this order:
    - `flops F`: the floating-point operations the op performs on this
      rank (finite, non-negative); the simulator sums them for MFU.
    - `mem M`: bytes this rank allocates when the op starts (negative:
      frees); the simulator tracks the running sum for peak memory.
    - `slices [..]`: one entry per listed sequence, the index (>= 0) of the
      slice of that sequence the op covers, when sequences are cut into
      consecutive slices (chunks). `plx-verify-rt` checks that a rank runs
      a sequence's slices forward in increasing order and backward (and
      recompute) in decreasing order.
    - `ulysses @name`: the op's attention runs under Ulysses sequence
      parallelism over this communicator (an `rt.group` of kind `sp`
      whose ranks include the program's, at least two): the rank holds its
      part of every slice's tokens, and the op's two all-to-alls per layer
      (tokens to heads before the attention core, heads to tokens after)
      run inside it. The `rt.all_to_all` ops of the same group next to the
      op account for their time and bytes.

    ```mlir
    rt.compute fwd layers [0, 16) stage 0 seqs [0, 1] time 0.004
    rt.compute bwd layers [0, 16) stage 0 seqs [2] time 0.008 flops 2.4e12 mem -1048576 slices [1]
    rt.compute fwd layers [0, 1) stage 0 seqs [6] time 0.0003 slices [0] ulysses @"sp:0-1"
    ```
  }];
  let arguments = (ins Rt_ComputeKindAttr:$kind, Rt_Int64Attr:$layer_begin,
                       Rt_Int64Attr:$layer_end, Rt_Int64Attr:$stage,
                       DenseI64ArrayAttr:$seqs, Rt_F64Attr:$time,
                       OptionalAttr<Rt_F64Attr>:$flops,
                       OptionalAttr<Rt_Int64Attr>:$mem,
                       OptionalAttr<DenseI64ArrayAttr>:$slices,
                       OptionalAttr<FlatSymbolRefAttr>:$ulysses);
  let assemblyFormat = [{
    custom<ComputeKind>($kind)
    `layers` ` ` `[` $layer_begin `,` $layer_end `)` `stage` $stage
    `seqs` $seqs `time` custom<TimeAndExtras>($time, $flops, $mem, $slices)
    (`ulysses` $ulysses^)?
    attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

class Rt_CollectiveOp<string mnemonic, string opSummary, string bytesMeaning>
    : Rt_Op<mnemonic, [HasParent<"ProgramOp">, Rt_CollectiveOpInterface,
                       DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = opSummary;
  let description = !strconcat([{
    The communicator's kind (`sp`, `tp`, `cp`, `zero` or `dp`, see
    `#rt<comm_kind>`) says what it is for; `comm` names the module's
    `rt.group` of that kind that holds its ranks in ring order, which
    include the rank of the enclosing program. `bytes` (non-negative) is
    the size of each rank's input buffer:}], bytesMeaning, [{

    With `async` the collective runs on the rank's communication stream:
    the rank goes on with its next op at once, the stream runs its
    collectives one at a time in issue order, and an `rt.wait` (or the end
    of the program) waits for them. The members of a group may differ in
    whether they issue it asynchronously.

    `layers [a, b)` (optional) says that the buffer holds the parameters
    (`all_gather`) or the gradients (`reduce_scatter`, `all_reduce`) of
    layers [a, b) of the rank's stage, packed in a fixed order, with the
    token embedding when a = 0 and the final norm and output head when b
    is the model's last layer and the stage holds them. A `zero`
    communicator shards the parameters at rest (ZeRO-3): the gather
    rebuilds them before a compute op, the reduce-scatter leaves each rank
    its shard of the summed gradient. A `dp` one synchronises a
    data-parallel step: an all-reduce (ZeRO-0), or a reduce-scatter and,
    after the optimizer has updated each rank's shard, an all-gather of the
    updated parameters (ZeRO-1 and 2).

    ```mlir
    rt.}], mnemonic, [{ group sp @"sp:4-7" bytes 1048576
    rt.}], mnemonic, [{ group zero @"zero:0-7" bytes 4096 async layers [0, 2)
    ```
  }]);
  let arguments = (ins Rt_CommKindAttr:$kind, FlatSymbolRefAttr:$comm,
                       Rt_Int64Attr:$bytes, UnitAttr:$async,
                       OptionalAttr<Rt_Int64Attr>:$layer_begin,
                       OptionalAttr<Rt_Int64Attr>:$layer_end);
  let assemblyFormat = [{
    `group` custom<CommKind>($kind) $comm `bytes` $bytes (`async` $async^)?
    (`layers` ` ` `[` $layer_begin^ `,` $layer_end `)`)? attr-dict
  }];
  let hasVerifier = 1;
}

def Rt_AllToAllOp : Rt_CollectiveOp<"all_to_all",
    "All-to-all exchange within a group (Ulysses sequence parallelism)", [{
    it is cut into as many equal blocks as the group has ranks (so `bytes`
    must be a multiple of the group size), and block `j` goes to the `j`-th
    rank of the group.
  }]>;

def Rt_AllReduceOp : Rt_CollectiveOp<"all_reduce",
    "Sum a buffer over a group, every rank receiving the result", [{
    every rank ends with the element-wise sum of all the group's buffers.
  }]>;

def Rt_AllGatherOp : Rt_CollectiveOp<"all_gather",
    "Concatenate every rank's buffer on every rank of a group", [{
    every rank ends with the group-size buffers of all ranks, concatenated
    in group order.
  }]>;

def Rt_ReduceScatterOp : Rt_CollectiveOp<"reduce_scatter",
    "Sum a buffer over a group, each rank keeping one block", [{
    the `j`-th rank of the group ends with the sum of block `j` of all
    buffers, where the blocks cut each buffer into as many equal parts as
    the group has ranks (so `bytes` must be a multiple of the group size).
  }]>;

//===----------------------------------------------------------------------===//
// Point to point
//===----------------------------------------------------------------------===//

def Rt_SendOp : Rt_Op<"send", [HasParent<"ProgramOp">]> {
  let summary = "Send a message to another rank";
  let description = [{
    Sends `bytes` (non-negative) to rank `peer`, written `to N`
    (non-negative, not the program's own rank). The receiver names this
    rank in an `rt.recv` with the same size and `tag` (non-negative);
    pipeline parallelism passes activations and gradients between stages
    this way. Whether the matching `rt.recv` exists is checked by the
    `plx-verify-rt` pass, not here.

    `carries fwd|bwd seqs [..] slices [..]` (optional) says what the
    message holds: the hidden states the sender's last forward produced
    for these sequences and slices (`fwd`), or the gradient its last
    backward produced for them (`bwd`); one slice index per sequence (0
    when a sequence is not cut). The receiver's `rt.recv` says the same.

    A send blocks until its receiver has posted the matching `rt.recv`.
    With `async` the rank's communication stream posts it instead, in
    order with the stream's asynchronous collectives, and the program goes
    on; `rt.wait` counts it among them (interleaved 1F1B sends this way,
    as Megatron-LM's batched isend does). A runtime may still run it as a
    blocking send: the lowering places every message in one global order
    that both sides share, so that is slower but cannot deadlock.

    ```mlir
    rt.send to 1 bytes 4096 tag 3
    rt.send to 2 bytes 155648 tag 0 carries fwd seqs [6] slices [0]
    rt.send to 0 bytes 4096 tag 9 async
    ```
  }];
  let arguments = (ins Rt_Int64Attr:$peer, Rt_Int64Attr:$bytes,
                       Rt_Int64Attr:$tag,
                       OptionalAttr<Rt_ComputeKindAttr>:$carries,
                       OptionalAttr<DenseI64ArrayAttr>:$seqs,
                       OptionalAttr<DenseI64ArrayAttr>:$slices,
                       UnitAttr:$async);
  let assemblyFormat = [{
    `to` $peer `bytes` $bytes `tag` $tag (`async` $async^)?
    (`carries` custom<ComputeKind>($carries) `seqs` $seqs^
     `slices` $slices)? attr-dict
  }];
  let hasVerifier = 1;
}

def Rt_RecvOp : Rt_Op<"recv", [HasParent<"ProgramOp">]> {
  let summary = "Receive a message from another rank";
  let description = [{
    Receives `bytes` (non-negative) from rank `peer`, written `from N`
    (non-negative, not the program's own rank), matching the sender's
    `rt.send` with the same `tag` (non-negative). It blocks until the
    message has arrived. `carries` is as for `rt.send`.

    ```mlir
    rt.recv from 0 bytes 4096 tag 3
    rt.recv from 0 bytes 155648 tag 0 carries fwd seqs [6] slices [0]
    ```
  }];
  let arguments = (ins Rt_Int64Attr:$peer, Rt_Int64Attr:$bytes,
                       Rt_Int64Attr:$tag,
                       OptionalAttr<Rt_ComputeKindAttr>:$carries,
                       OptionalAttr<DenseI64ArrayAttr>:$seqs,
                       OptionalAttr<DenseI64ArrayAttr>:$slices);
  let assemblyFormat = [{
    `from` $peer `bytes` $bytes `tag` $tag
    (`carries` custom<ComputeKind>($carries) `seqs` $seqs^
     `slices` $slices)? attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// rt.wait
//===----------------------------------------------------------------------===//

def Rt_WaitOp : Rt_Op<"wait", [HasParent<"ProgramOp">]> {
  let summary = "Wait for the rank's asynchronous collectives";
  let description = [{
    Blocks the rank until at most `pending` (non-negative, default 0) of
    the asynchronous collectives it has issued so far are unfinished. As
    the stream runs them in issue order, these are the most recent ones:
    `pending 1` after issuing a prefetch and a gradient reduction lets the
    reduction run on while the prefetch is needed now.

    ```mlir
    rt.wait pending 1
    ```
  }];
  let arguments = (ins Rt_Int64Attr:$pending);
  let assemblyFormat = "`pending` $pending attr-dict";
  let hasVerifier = 1;
}

#endif // PLEXUS_RT_OPS_TD
