//===- ProgramRunner.h - runProgram's body, on any Comm ---------*- C++ -*-===//
//
// Internal to the runtime's runProgram definitions: Program.cpp (MpiComm,
// library plxrt-program) and cuda/ProgramCuda.cpp (NcclComm behind a
// StagedComm, library plxrt-program-cuda). Each starts its transport and
// hands it to runProgramOn, which does everything Program.h describes from
// the flags on: the usage and world-size checks, the steps, --check,
// --profile, the error lines and the exit codes. Generated programs include
// Program.h only.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_RUNTIME_PROGRAMRUNNER_H
#define PLEXUS_RUNTIME_PROGRAMRUNNER_H

#include "runtime/Program.h"

#include <functional>

namespace plexus::runtime {

/// What the harness needs of a started transport besides its Comm.
struct ProgramHost {
  /// This process's rank of the world; its collectives take host buffers.
  Comm &comm;
  /// Shuts the transport down (the last call of the run, on every exit
  /// path after a successful start, at most once).
  std::function<Status()> finalize;
  /// Stops every rank of the world with `code` after this rank failed
  /// (peers may wait for it forever); called only when the world has more
  /// than one rank, and expected not to return (MPI_Abort).
  std::function<void(int code)> abortWorld;
};

/// Parses the flags, checks the world against `spec` and runs the steps;
/// returns the exit code (Program.h).
int runProgramOn(const ProgramHost &host, int argc, char **argv,
                 const ProgramSpec &spec);

} // namespace plexus::runtime

#endif // PLEXUS_RUNTIME_PROGRAMRUNNER_H
