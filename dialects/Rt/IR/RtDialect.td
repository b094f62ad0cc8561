//===- RtDialect.td - The rt (per-rank programs) dialect ---*- tablegen -*-===//
//
// The dialect definition and the shared ODS pieces of the rt ops.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_RT_DIALECT_TD
#define PLEXUS_RT_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Rt_Dialect : Dialect {
  let name = "rt";
  let cppNamespace = "::plexus::rt";
  let summary = "Per-rank programs: what each rank computes and communicates";
  let description = [{
    The `rt` dialect is the plan after lowering: one `rt.program` per rank,
    each an ordered list of the compute and communication steps that rank
    performs. Codegen turns each program into calls to the runtime library
    and the simulator replays the programs against the cost model and the
    fabric, so an op records exactly what both need: which layers and
    sequences a compute covers and its modeled time; which ranks a
    collective spans, in ring order, and how many bytes each rank moves;
    the peer, size and tag of every point-to-point message.

    Each op checks what it can see locally (its own attributes and the rank
    of its program). The contract between the programs of all ranks, that
    every send meets its receive and nothing deadlocks, is checked by the
    `plx-verify-rt` pass.
  }];
  let useDefaultAttributePrinterParser = 1;
}

class Rt_Op<string mnemonic, list<Trait> traits = []>
    : Op<Rt_Dialect, mnemonic, traits>;

// A signed 64-bit integer attribute whose accessor returns int64_t (the
// upstream I64Attr returns uint64_t, which hides negative values).
def Rt_Int64Attr
    : TypedSignlessIntegerAttrBase<I64, "int64_t",
                                   "64-bit signless integer attribute"> {
  let convertFromStorage = "$_self.getValue().getSExtValue()";
}

// A 64-bit float attribute whose accessor returns double.
def Rt_F64Attr : FloatAttrBase<F64, "64-bit float attribute"> {
  let returnType = "double";
  let convertFromStorage = "$_self.getValueAsDouble()";
}

//===----------------------------------------------------------------------===//
// Enums and attributes
//===----------------------------------------------------------------------===//

def Rt_ComputeKind : I32EnumAttr<"ComputeKind",
    "what a compute op runs: forward, backward or recompute", [
      I32EnumAttrCase<"fwd", 0>,
      I32EnumAttrCase<"bwd", 1>,
      I32EnumAttrCase<"recompute", 2>
    ]> {
  let cppNamespace = "::plexus::rt";
  let genSpecializedAttr = 0;
}

def Rt_CommKind : I32EnumAttr<"CommKind",
    "what a communicator is for", [
      I32EnumAttrCase<"sp", 0>,
      I32EnumAttrCase<"tp", 1>,
      I32EnumAttrCase<"cp", 2>,
      I32EnumAttrCase<"zero", 3>,
      I32EnumAttrCase<"dp", 4>
    ]> {
  let cppNamespace = "::plexus::rt";
  let genSpecializedAttr = 0;
}

def Rt_CommKindAttr : EnumAttr<Rt_Dialect, Rt_CommKind, "comm_kind"> {
  let summary = "What a collective's communicator is for";
  let description = [{
    `sp` exchanges a Ulysses group's heads and tokens, `tp` reduces a
    tensor-parallel group's partial sums, `cp` passes a context-parallel
    ring's keys and values, `zero` gathers and reduces parameters sharded at
    rest (ZeRO-3) and `dp` synchronises a data-parallel step's gradients
    (and, under ZeRO-1/2, gathers the updated parameters). Inside a
    collective it is written as the bare keyword after `group`
    (`rt.all_gather group zero @"zero:0-7" ...`), elsewhere as
    `#rt<comm_kind zero>`. Code generation and the runtime read it; the
    communicator's name is only an id.
  }];
  let assemblyFormat = "$value";
}

def Rt_ComputeKindAttr : EnumAttr<Rt_Dialect, Rt_ComputeKind, "compute_kind"> {
  let summary = "The pass a compute op runs";
  let description = [{
    `fwd` is the forward pass of the layers, `bwd` their backward pass, and
    `recompute` a second forward pass that rebuilds activations dropped by
    checkpointing just before the backward pass needs them. Inside
    `rt.compute` it is written as the bare keyword (`rt.compute bwd ...`),
    elsewhere as `#rt<compute_kind bwd>`.
  }];
  let assemblyFormat = "$value";
}

#endif // PLEXUS_RT_DIALECT_TD
