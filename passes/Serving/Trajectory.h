//===- Trajectory.h - Agent trajectories and their JSONL format -*- C++ -*-===//
//
// The agent tasks a serving job replays (reference pipeswift_railx.md
// sections 1.2 and 1.7): each task is a sequence of turns, each turn a
// prefill of new context on top of a cached prefix, a decode of its output
// and a tool call before the next turn. Recorded tasks are read from and
// written to a JSONL file, one task a line:
//
//   {"id": "swe-17", "turns": [
//     {"cached_tokens": 0, "new_tokens": 8000, "output_tokens": 600,
//      "tool_latency": 2.5, "mtp_accepted": [4, 1, 3, ...]},
//     {"cached_tokens": 8600, "new_tokens": 1500, ...}, ...]}
//
// Per turn:
//  - cached_tokens (integer >= 0): the prompt's prefix that the previous
//    turns left in the KV cache (their context and output);
//  - new_tokens (integer >= 0): the rest of the prompt (tool output, new
//    instructions); cached_tokens + new_tokens >= 1;
//  - output_tokens (integer >= 1): tokens the model generates;
//  - tool_latency (number >= 0, seconds): the wait after this turn's output
//    before the next turn arrives; ignored on a task's last turn;
//  - mtp_accepted (optional, integers >= 1): tokens emitted by each decode
//    step under multi-token prediction (the accepted drafts plus the
//    verified token). The first output token comes from the prefill, so the
//    steps must cover output_tokens - 1 tokens; the last step may overshoot.
// Per task, "id" (a string) is optional; other task-level keys (metadata
// such as a benchmark instance name) are ignored. A turn accepts only the
// five keys above, so a misspelt optional key is an error, not a silent
// default. Blank lines are skipped but counted, so errors name the line of
// the file.
//
// Plain C++, deterministic, errors as values: the reader returns every bad
// line with its line number (and the column where the JSON breaks).
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_SERVING_TRAJECTORY_H
#define PLEXUS_PASSES_SERVING_TRAJECTORY_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace plexus::serving {

/// One turn of an agent task.
struct AgentTurn {
  int64_t cachedTokens = 0; // prompt prefix already in the KV cache
  int64_t newTokens = 0;    // prompt tokens to prefill
  int64_t outputTokens = 1; // generated tokens (the first from the prefill)
  double toolLatency = 0;   // seconds from this turn's output to the next
  /// Tokens emitted per decode step under MTP; empty when not recorded.
  std::vector<int32_t> mtpAccepted;

  int64_t promptTokens() const { return cachedTokens + newTokens; }
  /// The context after this turn: prompt plus output.
  int64_t contextAfter() const { return promptTokens() + outputTokens; }
  bool operator==(const AgentTurn &o) const {
    return cachedTokens == o.cachedTokens && newTokens == o.newTokens &&
           outputTokens == o.outputTokens && toolLatency == o.toolLatency &&
           mtpAccepted == o.mtpAccepted;
  }
};

/// One agent task (a trajectory).
struct AgentTask {
  std::string id;
  std::vector<AgentTurn> turns;
  bool operator==(const AgentTask &o) const {
    return id == o.id && turns == o.turns;
  }
};

/// The tasks of a run and how many run at once (a closed loop: when a task
/// finishes, the next one not yet started begins).
struct AgentWorkload {
  std::vector<AgentTask> tasks;
  int64_t concurrency = 1;
};

/// One bad line of a trajectories file. `column` is 1-based where the JSON
/// breaks, 0 when the problem is with a value rather than the syntax.
struct TraceError {
  int64_t line = 0;
  int64_t column = 0;
  std::string message;
  /// "LINE:COL: MESSAGE" (or "LINE: MESSAGE" without a column).
  std::string str() const;
};

/// The tasks of a file, or every bad line (tasks is then empty).
struct TraceRead {
  std::vector<AgentTask> tasks;
  std::vector<TraceError> errors;
  bool ok() const { return errors.empty(); }
};

/// Reads JSONL text. A task without an "id" is named "line-N". An input
/// with no task at all is one error at line 0 ("holds no tasks").
TraceRead parseTrajectories(std::string_view text);

/// parseTrajectories on the contents of `path`; an unreadable file is one
/// error at line 0.
TraceRead readTrajectoriesFile(const std::string &path);

/// The JSONL text of `tasks`, one line each, keys in the order above;
/// "mtp_accepted" only when recorded. Numbers round-trip exactly.
std::string writeTrajectories(const std::vector<AgentTask> &tasks);

/// The checks the reader applies to one task, for tasks built in memory
/// (a generator, a test): empty when valid, else "turn N: ...".
std::string checkAgentTask(const AgentTask &task);

} // namespace plexus::serving

#endif // PLEXUS_PASSES_SERVING_TRAJECTORY_H
