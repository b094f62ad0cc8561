//===- Result.h - A value or an error message -------------------*- C++ -*-===//
//
// The serving library's error-as-value type: the cost library's Profiled<T>
// (an optional value and a message), as passes/AdaptiveSP uses it too.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_SERVING_RESULT_H
#define PLEXUS_PASSES_SERVING_RESULT_H

#include "passes/Cost/ProfiledCostModel.h"

namespace plexus::serving {

template <typename T> using Result = cost::Profiled<T>;

} // namespace plexus::serving

#endif // PLEXUS_PASSES_SERVING_RESULT_H
