//===- Offload.cpp - The process-wide kernel offload ----------------------===//
//
// One atomic pointer: set once at start-up, read by the model before each
// heavy kernel. Acquire/release so that a thread started after the set
// sees the offload fully built.
//
//===----------------------------------------------------------------------===//
#include "runtime/Offload.h"

#include <atomic>

namespace plexus::runtime {

namespace {
std::atomic<KernelOffload *> installed{nullptr};
} // namespace

KernelOffload::~KernelOffload() = default;

void setKernelOffload(KernelOffload *offload) {
  installed.store(offload, std::memory_order_release);
}

KernelOffload *kernelOffload() {
  return installed.load(std::memory_order_acquire);
}

} // namespace plexus::runtime
