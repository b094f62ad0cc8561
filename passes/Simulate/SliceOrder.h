//===- SliceOrder.h - The order of a split sequence's slices ----*- C++ -*-===//
//
// A rule of the plan contract that needs chunk semantics, checked by
// plx-verify-rt on every rank's program: a sequence cut into consecutive
// slices goes forward slice by slice in increasing order (a slice attends to
// the keys and values of the slices before it) and backward, and recompute,
// in decreasing order (the gradient of a slice's keys and values comes from
// the slices after it); and a slice goes backward only after its forward.
// Plain C++ over the simulator's programs (EventSimulator.h), no MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_SIMULATE_SLICEORDER_H
#define PLEXUS_PASSES_SIMULATE_SLICEORDER_H

#include "passes/Simulate/EventSimulator.h"

#include <cstddef>
#include <optional>
#include <string>

namespace plexus::sim {

/// Where a program breaks the slice order, and what it conflicts with.
struct SliceOrderViolation {
  size_t op = 0;       ///< index into Program::ops of the op at fault
  size_t other = 0;    ///< index of the op it conflicts with
  std::string message; ///< about `op`: "runs the forward of slice 1 of ..."
  std::string note;    ///< about `other`
};

/// The first violation of `program`, in program order, or nullopt. Only
/// compute ops with `slices` take part; the rule holds separately for each
/// (sequence, layer range [layerBegin, layerEnd)): forward ops see the
/// sequence's slice indices strictly increase, backward ops strictly
/// decrease, recompute ops strictly decrease; and when the program runs
/// the forward of that sequence over that layer range at all, the backward
/// of slice k comes after the forward of slice k.
std::optional<SliceOrderViolation> checkSliceOrder(const Program &program);

} // namespace plexus::sim

#endif // PLEXUS_PASSES_SIMULATE_SLICEORDER_H
