//===- ChromeTrace.h - Chrome trace JSON of a simulated step ----*- C++ -*-===//
//
// Writes a simulation's per-rank timelines in the Chrome trace event format
// (the JSON that chrome://tracing and Perfetto open): one process (pid 0),
// one thread per rank (tid = rank, named "rank N") and, for a rank with
// asynchronous collectives, one for its communication stream (tid = ranks
// + rank, named "rank N stream", sorted under it); one complete event
// (ph "X") per span with ts and dur in microseconds.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_SIMULATE_CHROMETRACE_H
#define PLEXUS_PASSES_SIMULATE_CHROMETRACE_H

#include "passes/Simulate/EventSimulator.h"

#include <string>

namespace plexus::sim {

/// The trace as a JSON string (deterministic: same result, same text).
/// `processName` names pid 0 in the viewer.
std::string chromeTraceJson(const SimResult &result,
                            const std::string &processName = "plexus step");

/// Writes chromeTraceJson(result) to `path`. Returns an empty string on
/// success, otherwise why the file could not be written.
std::string writeChromeTrace(const SimResult &result, const std::string &path,
                             const std::string &processName = "plexus step");

} // namespace plexus::sim

#endif // PLEXUS_PASSES_SIMULATE_CHROMETRACE_H
