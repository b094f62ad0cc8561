//===- MpiSupport.h - MPI helpers the communicators share ------*- C++ -*-===//
//
// Internal to the runtime's MPI users (MpiComm, and NcclComm, which
// bootstraps NCCL over MPI): MPI return codes as Status values, and the
// communicator of a group's members. Includes mpi.h, so it stays out of
// the public headers.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_RUNTIME_MPISUPPORT_H
#define PLEXUS_RUNTIME_MPISUPPORT_H

#include "runtime/Status.h"

#include <mpi.h>

#include <string>
#include <vector>

namespace plexus::runtime {

/// Success, or "AT: CALL failed: MPI's message (code N)".
Status checkMpi(int rc, const std::string &at, const char *call);

/// A communicator of `group`'s members only (rank j of it is group[j]),
/// created with MPI_Comm_create_group over `parent` with `tag`: collective
/// over the members alone. Its errors are returned, not fatal.
Status createMemberComm(MPI_Comm parent, const std::vector<int> &group, int tag,
                        const std::string &at, MPI_Comm &out);

} // namespace plexus::runtime

#endif // PLEXUS_RUNTIME_MPISUPPORT_H
