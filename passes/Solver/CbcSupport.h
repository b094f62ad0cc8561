//===- CbcSupport.h - What every CBC solve in Plexus shares -----*- C++ -*-===//
//
// The MILP solvers (FlexSP's SP groups, stage-aware checkpointing) use CBC
// through its C API the same way: a model owned by a handle, one process-
// wide lock around every solve (CBC's solve entry point is not thread-safe,
// coin-or/Cbc#332), and settings that make a solve deterministic: log off,
// one thread, fixed seeds, and no "mini branch-and-bound" (which CBC turns
// on by itself for models under 500 rows and columns and which ignores the
// node limit, so a solve would stop at the wall-clock limit instead).
// "Lean" search also turns off cuts, primal heuristics, preprocessing and
// strong branching: every caller starts CBC from a good incumbent of its
// own, so the search only has to improve on it, node by node.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_SOLVER_CBCSUPPORT_H
#define PLEXUS_PASSES_SOLVER_CBCSUPPORT_H

#include <coin/Cbc_C_Interface.h>

#include <mutex>

namespace plexus::solver {

/// Held around every Cbc_solve in the process.
std::mutex &cbcSolveMutex();

/// Owns a Cbc_Model.
struct CbcModelHandle {
  Cbc_Model *model = Cbc_newModel();
  CbcModelHandle() = default;
  CbcModelHandle(const CbcModelHandle &) = delete;
  CbcModelHandle &operator=(const CbcModelHandle &) = delete;
  ~CbcModelHandle() { Cbc_deleteModel(model); }
};

/// Quiet, single-threaded, seeded, no mini branch-and-bound; with `lean`,
/// also no cuts, heuristics, preprocessing or strong branching.
void configureDeterministic(Cbc_Model *model, bool lean);

} // namespace plexus::solver

#endif // PLEXUS_PASSES_SOLVER_CBCSUPPORT_H
