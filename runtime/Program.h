//===- Program.h - The main() of a generated per-rank program ---*- C++ -*-===//
//
// A generated program is one C++ file: one function per rank, each a
// straight list of StepExecutor calls (runtime/Executor.h), a ProgramSpec
// naming the plan, the model, the batch and each rank's stage, and a main()
// that hands everything to runProgram:
//
//   static Status rank_0(StepExecutor &x) {
//     PLXRT_TRY(x.forward(0, {0, 2}, {{0}, {0}}, nullptr, {0, 0}));
//     ...
//     return Status::success();
//   }
//   int main(int argc, char **argv) { return runProgram(argc, argv, spec); }
//
// runProgram starts MPI (one process per rank, launched with mpirun),
// builds this rank's executor and runs the steps: the rank's program, the
// end-of-step checks, the world's loss, and the optimizer. Flags:
//
//   --steps N      steps to run (default 1)
//   --check        on the first step, before the optimizer, compare the
//                  loss and every gradient with the single-process
//                  referenceStep on rank 0 (exit 1 beyond the tolerance)
//   --tolerance X  the check's relative tolerance (default 1e-5)
//   --profile      per rank, averaged over the steps: compute,
//                  communication (the Ulysses all-to-alls inside the layers
//                  included) and step wall seconds; the same compute and
//                  communication in the rank's own CPU seconds (what it did
//                  whatever share of a core it got); and the wait in the
//                  end-of-step loss sum, where early ranks wait for the last
//
// Exit codes: 0 success; 1 a failed op or check (the op's error, prefixed
// "<plan>: error on rank r: ", goes to stderr; ranks that could wait for
// the failed one forever are stopped with MPI_Abort); 2 bad flags or a
// world of the wrong size.
//
// Two definitions, one per backend; a program links one of them:
// plxrt-program (Program.cpp: MpiComm, built only where MPI is found) and
// plxrt-program-cuda (cuda/ProgramCuda.cpp: NCCL collectives, the kernels
// still on the CPU; built only where plxrt-cuda is). Both run the same
// harness (ProgramRunner.h) with the same flags, output and exit codes.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_RUNTIME_PROGRAM_H
#define PLEXUS_RUNTIME_PROGRAM_H

#include "runtime/Executor.h"

#include <string>
#include <vector>

namespace plexus::runtime {

/// What a rank holds: its layers (pipeline stage) and its ZeRO-3 group
/// (empty: full parameters).
struct RankSetup {
  LayerRange layers;
  Group zeroGroup;
};

/// One rank's program: the plan's ops for that rank, in order.
using RankProgram = Status (*)(StepExecutor &);

struct ProgramSpec {
  std::string name; ///< the plan's name, printed
  ModelConfig model;
  StepBatch batch;
  uint64_t weightSeed = 0;
  int64_t planElementBytes = 4;
  std::vector<RankSetup> ranks;      ///< one per rank
  std::vector<RankProgram> programs; ///< one per rank
};

/// Runs the plan on this MPI process's rank; returns the exit code.
int runProgram(int argc, char **argv, const ProgramSpec &spec);

} // namespace plexus::runtime

#endif // PLEXUS_RUNTIME_PROGRAM_H
