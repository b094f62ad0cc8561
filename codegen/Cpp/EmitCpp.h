//===- EmitCpp.h - rt programs to one C++ program ---------------*- C++ -*-===//
//
// Code generation from the rt dialect: one C++ source that runs every rank
// of a lowered step as calls into libplxrt's step executor
// (runtime/Executor.h, runtime/Program.h), plus the files that go beside
// it: a launch script, the programs as JSON and an NCCL topology file.
//
// The generator reads what the rt IR says and nothing else: the model
// (rt.model), the batch (rt.batch) and each rank's rt.program. It never
// re-plans; a program it cannot express as runtime calls is an error on
// the op at fault (a tensor- or context-parallel communicator, a message
// that does not say what it carries, a collective that carries nothing
// the runtime knows). Callers run plx-verify-rt first (verifyForCodegen),
// so nothing is written for programs that break the plan contract.
//
// Mapping, one call per rt op (runs that repeat are loops over a table of
// what changes between repetitions; docs/codegen.md):
//   rt.compute fwd|recompute|bwd  -> x.forward / x.recompute / x.backward
//   rt.send / rt.recv (carries)   -> x.send / x.recv
//   rt.all_gather  zero, layers   -> x.gatherParams
//   rt.all_gather  dp, layers     -> x.updateAndGatherParams
//   rt.reduce_scatter zero|dp     -> x.reduceScatterGrads
//   rt.all_reduce  dp, layers     -> x.allReduceGrads
//   rt.all_to_all  sp             -> a comment: the Ulysses exchanges run
//                                    inside the compute op of that group
//   rt.wait                       -> x.wait
// A forward's checkpointed layers are those a later rt.compute recompute
// of the same sequences and slices on the same rank rebuilds.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_CODEGEN_CPP_EMITCPP_H
#define PLEXUS_CODEGEN_CPP_EMITCPP_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace plexus::codegen {

/// Runs plx-verify-rt on the module: the plan contract (every send meets
/// its recv, nothing deadlocks, slices in order, messages agree on what
/// they carry). Diagnostics go to the context's handler.
mlir::LogicalResult verifyForCodegen(mlir::ModuleOp module);

struct CppOptions {
  /// Where the programs came from (a file name), for the header comment.
  std::string source;
};

/// The C++ program of the module's rt programs.
mlir::LogicalResult emitCpp(mlir::ModuleOp module, llvm::raw_ostream &os,
                            const CppOptions &options = {});

struct LaunchOptions {
  /// Where the runtime's headers and libraries are, baked into the script
  /// (overridable by PLEXUS_SRC and PLEXUS_BUILD at run time).
  std::string sourceDir, buildDir;
  /// The MPI launcher and its flags for this machine.
  std::string mpirun = "mpirun";
  std::string mpirunFlags;
};

/// launch.sh: builds program.cpp next to it when needed, then starts one
/// process per rank under mpirun (and shows the srun line for clusters).
mlir::LogicalResult emitLaunchScript(mlir::ModuleOp module,
                                     llvm::raw_ostream &os,
                                     const LaunchOptions &options);

/// The rt programs as JSON: the model, the batch, every communicator's
/// members once ("communicators": its rt.group's name -> ranks in ring
/// order) and every rank's ops, which name their communicators ("comm",
/// "ulysses").
mlir::LogicalResult emitProgramsJson(mlir::ModuleOp module,
                                     llvm::raw_ostream &os);

/// An NCCL topology file (NCCL_TOPO_FILE) for the ranks of the module's
/// plan.job: one <cpu> per node holding its GPUs and one NIC, from the
/// placement (rank -> node, local index) and the fabric's bandwidths.
mlir::LogicalResult emitNcclTopology(mlir::ModuleOp module,
                                     llvm::raw_ostream &os);

} // namespace plexus::codegen

#endif // PLEXUS_CODEGEN_CPP_EMITCPP_H
