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

    ```mlir
    rt.program @rank_0 rank 0 {
      rt.compute fwd layers [0, 16) stage 0 seqs [0, 1] time 0.004
      rt.send to 1 bytes 4096 tag 3
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Rt_Int64Attr:$rank);
  let regions = (region SizedRegion<1>:$bodyRegion);
  let assemblyFormat = [{
    $sym_name `rank` $rank attr-dict-with-keyword $bodyRegion
  }];
  let skipDefaultBuilders = 1;
  let builders = [
    // Creates the program with an empty body block, ready for its ops.
    OpBuilder<(ins "::llvm::StringRef":$symName, "int64_t":$rank)>
  ];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// rt.compute
//===----------------------------------------------------------------------===//

def Rt_ComputeOp : Rt_Op<"compute", [HasParent<"ProgramOp">]> {
  let summary = "A forward, backward or recompute pass over a layer range";
  let description = [{
    An `rt.compute` runs one pass (`kind`: `fwd`, `bwd` or `recompute`) of
    the layers `[layer_begin, layer_end)` (end exclusive, non-empty,
    `layer_begin` >= 0) of pipeline stage `stage` (>= 0) over the listed
    sequences (`seqs`, or slices of them; ids non-negative, at least one,
    no repeats). `time` is the modeled time in seconds (finite,
    non-negative).

    ```mlir
    rt.compute fwd layers [0, 16) stage 0 seqs [0, 1] time 0.004
    ```
  }];
  let arguments = (ins Rt_ComputeKindAttr:$kind, Rt_Int64Attr:$layer_begin,
                       Rt_Int64Attr:$layer_end, Rt_Int64Attr:$stage,
                       DenseI64ArrayAttr:$seqs, Rt_F64Attr:$time);
  let assemblyFormat = [{
    custom<ComputeKind>($kind)
    `layers` ` ` `[` $layer_begin `,` $layer_end `)` `stage` $stage
    `seqs` $seqs `time` custom<Decimal>($time) attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

class Rt_CollectiveOp<string mnemonic, string opSummary, string bytesMeaning>
    : Rt_Op<mnemonic, [HasParent<"ProgramOp">, Rt_CollectiveOpInterface]> {
  let summary = opSummary;
  let description = !strconcat([{
    The communicator is named by a string (`comm`; every rank of the group
    names it the same way) followed by its ranks in ring order (`group`).
    The group is non-empty, its ranks are non-negative and distinct, and it
    includes the rank of the enclosing program. `bytes` (non-negative) is
    the size of each rank's input buffer:}], bytesMeaning, [{

    ```mlir
    rt.}], mnemonic, [{ group "mb0.sp1" [4, 5, 6, 7] bytes 1048576
    ```
  }]);
  let arguments = (ins StrAttr:$comm, DenseI64ArrayAttr:$group,
                       Rt_Int64Attr:$bytes);
  let assemblyFormat = "`group` $comm $group `bytes` $bytes attr-dict";
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

    ```mlir
    rt.send to 1 bytes 4096 tag 3
    ```
  }];
  let arguments = (ins Rt_Int64Attr:$peer, Rt_Int64Attr:$bytes,
                       Rt_Int64Attr:$tag);
  let assemblyFormat = "`to` $peer `bytes` $bytes `tag` $tag attr-dict";
  let hasVerifier = 1;
}

def Rt_RecvOp : Rt_Op<"recv", [HasParent<"ProgramOp">]> {
  let summary = "Receive a message from another rank";
  let description = [{
    Receives `bytes` (non-negative) from rank `peer`, written `from N`
    (non-negative, not the program's own rank), matching the sender's
    `rt.send` with the same `tag` (non-negative). It blocks until the
    message has arrived.

    ```mlir
    rt.recv from 0 bytes 4096 tag 3
    ```
  }];
  let arguments = (ins Rt_Int64Attr:$peer, Rt_Int64Attr:$bytes,
                       Rt_Int64Attr:$tag);
  let assemblyFormat = "`from` $peer `bytes` $bytes `tag` $tag attr-dict";
  let hasVerifier = 1;
}

#endif // PLEXUS_RT_OPS_TD
