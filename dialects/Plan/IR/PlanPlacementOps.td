//===- PlanPlacementOps.td - Jobs, communicators, placement -*- tablegen -*-===//
//
// What placement needs and decides: a job's ranks on a fabric, the
// communicators its plan uses, the chip of every rank, each communicator's
// ring order, and the optical circuits that realise the rings.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PLAN_PLACEMENT_OPS_TD
#define PLEXUS_PLAN_PLACEMENT_OPS_TD

def Plan_CommKind : I32EnumAttr<"CommKind", "how a communicator talks", [
    I32EnumAttrCase<"all_to_all", 0>, I32EnumAttrCase<"ring", 1>,
    I32EnumAttrCase<"pipeline", 2>]> {
  let cppNamespace = "::plexus::plan";
}

def Plan_RailAxis : I32EnumAttr<"RailAxis", "a RailX grid dimension", [
    I32EnumAttrCase<"row", 0>, I32EnumAttrCase<"col", 1>]> {
  let cppNamespace = "::plexus::plan";
}

//===----------------------------------------------------------------------===//
// plan.job
//===----------------------------------------------------------------------===//

def Plan_JobOp : Plan_Op<"job", [Symbol, SymbolTable, SingleBlock, NoTerminator,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "A job's ranks on a fabric, with the communicators it uses";
  let description = [{
    `ranks` ranks of one job run on the `plx.fabric` named by `fabric`. The
    body lists the communicators (`plan.comm_group`) the job's plan uses.
    `plx-place` fills `chips`: for rank r, the chip `(node, index)` it runs
    on. Jobs placed on one fabric get disjoint chips.

    ```mlir
    plan.job @train fabric @cluster ranks 4 chips [(0, 0), (0, 1), (1, 0), (1, 1)] {
      plan.comm_group @sp all_to_all ranks [0, 1, 2, 3]
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, FlatSymbolRefAttr:$fabric,
                       Plan_Int64Attr:$ranks,
                       OptionalAttr<DenseI64ArrayAttr>:$chips);
  let regions = (region SizedRegion<1>:$bodyRegion);
  let assemblyFormat = [{
    $sym_name `fabric` $fabric `ranks` $ranks
    (`chips` custom<ChipList>($chips)^)? attr-dict-with-keyword $bodyRegion
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The chip of `rank` as (node, index); requires getChips().
    std::pair<int64_t, int64_t> chipOf(int64_t rank);
  }];
}

//===----------------------------------------------------------------------===//
// plan.comm_group
//===----------------------------------------------------------------------===//

def Plan_CommGroupOp : Plan_Op<"comm_group", [Symbol, HasParent<"JobOp">]> {
  let summary = "A communicator of a job: its ranks and, once placed, its ring";
  let description = [{
    `kind` says how the members talk: `all_to_all` (SP and EP groups),
    `ring` (data-parallel all-reduce), `pipeline` (consecutive stages send
    to each other; `ranks` lists the stages in order). After `plx-place`,
    `order` is the ring order (a permutation of `ranks`) and `hops` the
    largest number of inter-node hops between consecutive members.

    ```mlir
    plan.comm_group @dp ring ranks [0, 4, 8, 12] order [0, 8, 4, 12] hops 1
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Plan_CommKind:$kind,
                       DenseI64ArrayAttr:$ranks,
                       OptionalAttr<DenseI64ArrayAttr>:$order,
                       OptionalAttr<Plan_Int64Attr>:$hops);
  let assemblyFormat = [{
    $sym_name $kind `ranks` $ranks (`order` $order^)? (`hops` $hops^)?
    attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// plan.circuits / plan.circuit
//===----------------------------------------------------------------------===//

def Plan_CircuitsOp : Plan_Op<"circuits", [Symbol, SingleBlock, NoTerminator]> {
  let summary = "The optical circuit table of a RailX fabric";
  let description = [{
    One `plan.circuit` per rail of every row and column of the fabric named
    by the symbol. Written by `plx-place`.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name);
  let regions = (region SizedRegion<1>:$bodyRegion);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $bodyRegion";
}

def Plan_CircuitOp : Plan_Op<"circuit", [HasParent<"CircuitsOp">]> {
  let summary = "The circuits of one optical switch: a ring over nodes";
  let description = [{
    The OCS of rail `rail` of row (column) `index` connects the nodes of
    `cycle` into a ring in that order (node ids as the fabric numbers them).
    A node bypassed because of a failed port is left out of the ring.
    `ports` is the switch's configuration: port p (the port facing the node
    at position p along the row or column) is connected to port `ports[p]`;
    an unused or bypassed port maps to itself.

    ```mlir
    plan.circuit row 0 rail 1 cycle [0, 2, 1] ports [2, 0, 1]
    ```
  }];
  let arguments = (ins Plan_RailAxis:$axis, Plan_Int64Attr:$index,
                       Plan_Int64Attr:$rail, DenseI64ArrayAttr:$cycle,
                       OptionalAttr<DenseI64ArrayAttr>:$ports);
  let assemblyFormat = [{
    $axis $index `rail` $rail `cycle` $cycle (`ports` $ports^)? attr-dict
  }];
  let hasVerifier = 1;
}

#endif // PLEXUS_PLAN_PLACEMENT_OPS_TD
