//===- Result.h - A value or an error message -------------------*- C++ -*-===//
//
// The serving library's name for the one error-as-value type,
// plexus::Result<T> (passes/Support/Result.h), as every planner has it.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_SERVING_RESULT_H
#define PLEXUS_PASSES_SERVING_RESULT_H

#include "passes/Support/Result.h"

namespace plexus::serving {

using ::plexus::Result; // passes/Support/Result.h

} // namespace plexus::serving

#endif // PLEXUS_PASSES_SERVING_RESULT_H
