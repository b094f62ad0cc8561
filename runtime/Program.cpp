//===- Program.cpp - The main() of a generated per-rank program -----------===//
//
// The CPU backend's runProgram: MpiComm carries the collectives on the host
// buffers of the step executor; ProgramRunner.cpp does the rest.
//
//===----------------------------------------------------------------------===//
#include "runtime/Program.h"
#include "runtime/MpiComm.h"
#include "runtime/ProgramRunner.h"

#include <mpi.h>

#include <cstdio>

namespace plexus::runtime {

int runProgram(int argc, char **argv, const ProgramSpec &spec) {
  Result<std::unique_ptr<MpiComm>> created = MpiComm::create(&argc, &argv);
  if (!created.ok()) {
    std::fprintf(stderr, "%s: %s\n", spec.name.c_str(),
                 created.message().c_str());
    return 1;
  }
  MpiComm &comm = **created;
  const ProgramHost host{comm, [&comm] { return comm.finalize(); },
                         [](int code) { MPI_Abort(MPI_COMM_WORLD, code); }};
  return runProgramOn(host, argc, argv, spec);
}

} // namespace plexus::runtime
