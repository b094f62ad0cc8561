//===- ProgramCuda.cpp - runProgram on the CUDA backend -------------------===//
//
// The second definition of runProgram (Program.h), in library
// plxrt-program-cuda: a generated program linked against it instead of
// plxrt-program (test/e2e builds the same source with nvcc) runs its
// collectives and messages over NCCL, and its matmuls and attention core
// on the GPU. The step executor's tensors stay on the host: StagedComm
// copies each collective's buffers to the GPU, runs the NcclComm op there
// and copies the result back, and the CudaOffload installed for the
// process (runtime/Offload.h) does the same around each heavy kernel. The
// rest of the step (norms, RoPE, activations, loss, Adam) runs on the CPU
// kernels.
//
// Start-up: this file initialises MPI itself, so that it knows the rank
// even when NcclComm::create fails, then creates the NcclComm (device =
// node-local rank mod device count) and, when that succeeded, the
// CudaOffload on the same device. Every rank then learns, with one
// MPI_Allreduce over MPI_COMM_WORLD, whether any rank failed to start; if
// one did, each failing rank prints
//   <plan>: error on rank r: NCCL start-up on rank r: no CUDA device: ...
// (or whatever else create returned), and every rank finalises MPI and
// exits 2, without waiting in a collective for a rank that never started.
// Otherwise the offload is installed before the first step and cleared at
// shutdown, and from there on runProgramOn (ProgramRunner.h) does what
// runProgram does on the CPU backend, with the same flags, output and exit
// codes.
//
//===----------------------------------------------------------------------===//
#include "runtime/MpiSupport.h"
#include "runtime/Program.h"
#include "runtime/ProgramRunner.h"
#include "runtime/cuda/CudaOffload.h"
#include "runtime/cuda/NcclComm.h"
#include "runtime/cuda/StagedComm.h"

#include <mpi.h>

#include <cstdio>

namespace plexus::runtime {

using cuda::CudaOffload;
using cuda::NcclComm;
using cuda::StagedComm;

int runProgram(int argc, char **argv, const ProgramSpec &spec) {
  const char *name = spec.name.c_str();
  Status st =
      checkMpi(MPI_Init(&argc, &argv), "CUDA program start-up", "MPI_Init");
  if (!st.ok()) {
    std::fprintf(stderr, "%s: %s\n", name, st.message().c_str());
    return 1;
  }
  int rank = 0;
  (void)MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  (void)MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  Result<std::unique_ptr<NcclComm>> created = NcclComm::create(&argc, &argv);
  Status started = created.ok() ? Status::success() : created.status();
  std::unique_ptr<CudaOffload> offload;
  if (created.ok()) {
    Result<std::unique_ptr<CudaOffload>> made =
        CudaOffload::create((*created)->device(), rank);
    if (made.ok())
      offload = made.take();
    else
      started = made.status();
  }
  int failed = started.ok() ? 0 : 1;
  if (!started.ok()) {
    std::fprintf(stderr, "%s: error on rank %d: %s\n", name, rank,
                 started.message().c_str());
    std::fflush(stderr);
  }
  int anyFailed = 1;
  st = checkMpi(
      MPI_Allreduce(&failed, &anyFailed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD),
      "CUDA program start-up on rank " + std::to_string(rank), "MPI_Allreduce");
  if (!st.ok()) {
    std::fprintf(stderr, "%s: error on rank %d: %s\n", name, rank,
                 st.message().c_str());
    anyFailed = 1;
  }
  if (anyFailed) {
    if (offload)
      (void)offload->release();
    if (created.ok())
      (void)(*created)->finalize();
    (void)MPI_Finalize();
    return 2;
  }

  NcclComm &nccl = **created;
  StagedComm staged(nccl);
  setKernelOffload(offload.get());
  if (rank == 0) {
    std::printf("%s: CUDA backend: collectives over NCCL on device buffers "
                "(rank 0 on device %d); matmuls and the attention core on "
                "the GPU, host tensors staged per call; norms, RoPE, "
                "activations, loss and Adam on the CPU\n",
                name, nccl.device());
    std::fflush(stdout);
  }
  const ProgramHost host{
      staged,
      [&staged, &nccl, &offload, rank]() {
        setKernelOffload(nullptr);
        Status kernels = offload->release();
        Status released = staged.release();
        Status closed = nccl.finalize();
        Status mpi =
            checkMpi(MPI_Finalize(),
                     "CUDA program shutdown on rank " + std::to_string(rank),
                     "MPI_Finalize");
        for (const Status *st : {&kernels, &released, &closed})
          if (!st->ok())
            return *st;
        return mpi;
      },
      [](int code) { MPI_Abort(MPI_COMM_WORLD, code); }};
  const int code = runProgramOn(host, argc, argv, spec);
  setKernelOffload(nullptr);
  return code;
}

} // namespace plexus::runtime
