//===- ChromeTrace.cpp - Chrome trace JSON of a simulated step ------------===//
#include "passes/Simulate/ChromeTrace.h"

#include <nlohmann/json.hpp>

#include <fstream>

namespace plexus::sim {

std::string chromeTraceJson(const SimResult &result,
                            const std::string &processName) {
  using nlohmann::json;
  json events = json::array();
  events.push_back({{"name", "process_name"},
                    {"ph", "M"},
                    {"pid", 0},
                    {"tid", 0},
                    {"args", {{"name", processName}}}});
  // Rank r is thread r; its communication stream, when it has
  // asynchronous collectives, thread n + r, sorted just below it.
  const size_t n = result.ranks.size();
  for (size_t r = 0; r < n; ++r) {
    bool hasStream = false;
    for (const Span &s : result.ranks[r].spans)
      hasStream |= s.async;
    for (int lane = 0; lane < (hasStream ? 2 : 1); ++lane) {
      size_t tid = lane ? n + r : r;
      std::string name = "rank " + std::to_string(r) + (lane ? " stream" : "");
      events.push_back({{"name", "thread_name"},
                        {"ph", "M"},
                        {"pid", 0},
                        {"tid", tid},
                        {"args", {{"name", name}}}});
      events.push_back({{"name", "thread_sort_index"},
                        {"ph", "M"},
                        {"pid", 0},
                        {"tid", tid},
                        {"args", {{"sort_index", 2 * r + lane}}}});
    }
  }
  for (size_t r = 0; r < n; ++r) {
    for (const Span &s : result.ranks[r].spans) {
      json args = {{"op", s.opIndex}};
      if (!s.isCompute)
        args["bytes"] = s.bytes;
      events.push_back({{"name", s.name},
                        {"cat", s.category},
                        {"ph", "X"},
                        {"pid", 0},
                        {"tid", s.async ? n + r : r},
                        {"ts", s.start * 1e6},
                        {"dur", (s.end - s.start) * 1e6},
                        {"args", args}});
    }
  }
  json trace = {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
  return trace.dump(1);
}

std::string writeChromeTrace(const SimResult &result, const std::string &path,
                             const std::string &processName) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    return "cannot open '" + path + "' for writing";
  out << chromeTraceJson(result, processName) << '\n';
  out.close();
  if (!out)
    return "cannot write '" + path + "'";
  return "";
}

} // namespace plexus::sim
