//===- ProgramCuda.cpp - runProgram on the CUDA backend -------------------===//
//
// The second definition of runProgram (Program.h), in library
// plxrt-program-cuda: a generated program linked against it instead of
// plxrt-program (test/e2e builds the same source with nvcc) runs its
// collectives and messages over NCCL. Only the communication is on the
// device so far: the step executor's tensors and kernels stay on the host
// (the CPU kernels), and StagedComm copies each collective's buffers to the
// GPU, runs the NcclComm op there, and copies the result back.
//
// Start-up: this file initialises MPI itself, so that it knows the rank
// even when NcclComm::create fails, then creates the NcclComm (device =
// node-local rank mod device count). Every rank then learns, with one
// MPI_Allreduce over MPI_COMM_WORLD, whether any rank failed to start; if
// one did, each failing rank prints
//   <plan>: error on rank r: NCCL start-up on rank r: no CUDA device: ...
// (or whatever else create returned), and every rank finalises MPI and
// exits 2, without waiting in a collective for a rank that never started.
// From there on runProgramOn (ProgramRunner.h) does what runProgram does
// on the CPU backend, with the same flags, output and exit codes.
//
//===----------------------------------------------------------------------===//
#include "runtime/Program.h"
#include "runtime/MpiSupport.h"
#include "runtime/ProgramRunner.h"
#include "runtime/cuda/NcclComm.h"
#include "runtime/cuda/StagedComm.h"

#include <mpi.h>

#include <cstdio>

namespace plexus::runtime {

using cuda::NcclComm;
using cuda::StagedComm;

int runProgram(int argc, char **argv, const ProgramSpec &spec) {
  const char *name = spec.name.c_str();
  Status st = checkMpi(MPI_Init(&argc, &argv), "CUDA program start-up",
                       "MPI_Init");
  if (!st.ok()) {
    std::fprintf(stderr, "%s: %s\n", name, st.message().c_str());
    return 1;
  }
  int rank = 0;
  (void)MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  (void)MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  Result<std::unique_ptr<NcclComm>> created = NcclComm::create(&argc, &argv);
  int failed = created.ok() ? 0 : 1;
  if (!created.ok()) {
    std::fprintf(stderr, "%s: error on rank %d: %s\n", name, rank,
                 created.message().c_str());
    std::fflush(stderr);
  }
  int anyFailed = 1;
  st = checkMpi(
      MPI_Allreduce(&failed, &anyFailed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD),
      "CUDA program start-up on rank " + std::to_string(rank),
      "MPI_Allreduce");
  if (!st.ok()) {
    std::fprintf(stderr, "%s: error on rank %d: %s\n", name, rank,
                 st.message().c_str());
    anyFailed = 1;
  }
  if (anyFailed) {
    if (created.ok())
      (void)(*created)->finalize();
    (void)MPI_Finalize();
    return 2;
  }

  NcclComm &nccl = **created;
  StagedComm staged(nccl);
  if (rank == 0) {
    std::printf("%s: CUDA backend: collectives over NCCL on device buffers "
                "(rank 0 on device %d), kernels on the CPU\n",
                name, nccl.device());
    std::fflush(stdout);
  }
  const ProgramHost host{
      staged,
      [&staged, &nccl, rank]() {
        Status released = staged.release();
        Status closed = nccl.finalize();
        Status mpi = checkMpi(MPI_Finalize(),
                              "CUDA program shutdown on rank " +
                                  std::to_string(rank),
                              "MPI_Finalize");
        if (!released.ok())
          return released;
        return closed.ok() ? mpi : closed;
      },
      [](int code) { MPI_Abort(MPI_COMM_WORLD, code); }};
  return runProgramOn(host, argc, argv, spec);
}

} // namespace plexus::runtime
