//===- Trajectory.cpp - Agent trajectories and their JSONL format ---------===//
//
// The reader parses each line with nlohmann::json in its non-throwing mode;
// when a line is not valid JSON it is parsed a second time through a SAX
// handler that only records where and why the parser stopped, so the error
// carries a column without any exception being raised.
//
//===----------------------------------------------------------------------===//

#include "passes/Serving/Trajectory.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

namespace plexus::serving {

namespace {

using nlohmann::json;

// The language's bound on token counts (docs/language.md, `prompt` etc.);
// sums of a few such counts stay far from int64 overflow.
constexpr int64_t kMaxTokens = int64_t(1) << 40;
// An accepted length above this is a corrupt record, not a draft depth.
constexpr int64_t kMaxAccepted = 1024;

std::string num(int64_t v) { return std::to_string(v); }

/// Records the position and reason of the first syntax error; accepts
/// everything else without building anything.
struct SyntaxErrorFinder : nlohmann::json_sax<json> {
  size_t byte = 0;
  std::string message;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t &) override { return true; }
  bool string(string_t &) override { return true; }
  bool binary(binary_t &) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t &) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string &,
                   const nlohmann::detail::exception &ex) override {
    byte = position;
    std::string what = ex.what();
    size_t dash = what.find(" - ");
    message = dash == std::string::npos ? std::string("parse error")
                                        : what.substr(dash + 3);
    return false;
  }
};

/// Counts UTF-8 code points in the first `bytes` bytes (columns count
/// characters, as the frontend's diagnostics do).
int64_t columnOf(std::string_view row, size_t bytes) {
  bytes = std::min(bytes, row.size());
  int64_t column = 0;
  for (size_t i = 0; i < bytes; ++i)
    if ((static_cast<unsigned char>(row[i]) & 0xC0) != 0x80)
      ++column;
  return std::max<int64_t>(column, 1);
}

/// A non-negative integer field within the token bound, or an error.
bool readCount(const json &turn, const char *key, bool required,
               int64_t minimum, int64_t &out, std::string &error) {
  auto it = turn.find(key);
  if (it == turn.end()) {
    if (required)
      error = std::string("missing \"") + key + "\"";
    return !required;
  }
  if (!it->is_number_integer()) {
    error = std::string("\"") + key + "\" must be an integer";
    return false;
  }
  if (it->is_number_unsigned() &&
      it->get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())) {
    error = std::string("\"") + key + "\" is too large";
    return false;
  }
  int64_t v = it->get<int64_t>();
  if (v < minimum || v > kMaxTokens) {
    error = std::string("\"") + key + "\" (" + num(v) + ") must be in [" +
            num(minimum) + ", 2^40]";
    return false;
  }
  out = v;
  return true;
}

/// One turn object, or an error message (without the "turn N: " prefix).
std::string readTurn(const json &j, AgentTurn &turn) {
  if (!j.is_object())
    return "expected a JSON object";
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string &k = it.key();
    if (k != "cached_tokens" && k != "new_tokens" && k != "output_tokens" &&
        k != "tool_latency" && k != "mtp_accepted")
      return "unknown key \"" + k +
             "\" (a turn has cached_tokens, new_tokens, output_tokens, "
             "tool_latency, mtp_accepted)";
  }
  std::string error;
  if (!readCount(j, "cached_tokens", true, 0, turn.cachedTokens, error) ||
      !readCount(j, "new_tokens", true, 0, turn.newTokens, error) ||
      !readCount(j, "output_tokens", true, 1, turn.outputTokens, error))
    return error;
  auto lat = j.find("tool_latency");
  if (lat == j.end())
    return "missing \"tool_latency\"";
  if (!lat->is_number())
    return "\"tool_latency\" must be a number of seconds";
  turn.toolLatency = lat->get<double>();
  if (!(turn.toolLatency >= 0) || !std::isfinite(turn.toolLatency))
    return "\"tool_latency\" must be a finite number >= 0";
  turn.mtpAccepted.clear();
  auto acc = j.find("mtp_accepted");
  if (acc != j.end()) {
    if (!acc->is_array())
      return "\"mtp_accepted\" must be a list of integers";
    turn.mtpAccepted.reserve(acc->size());
    for (size_t i = 0; i < acc->size(); ++i) {
      const json &a = (*acc)[i];
      if (!a.is_number_integer() || a.get<int64_t>() < 1 ||
          (a.is_number_unsigned() && a.get<uint64_t>() > kMaxAccepted) ||
          a.get<int64_t>() > kMaxAccepted)
        return "\"mtp_accepted\"[" + num(int64_t(i)) +
               "] must be an integer in [1, " + num(kMaxAccepted) + "]";
      turn.mtpAccepted.push_back(int32_t(a.get<int64_t>()));
    }
  }
  return "";
}

} // namespace

std::string TraceError::str() const {
  std::string at = std::to_string(line);
  if (column > 0)
    at += ":" + std::to_string(column);
  return at + ": " + message;
}

std::string checkAgentTask(const AgentTask &task) {
  if (task.turns.empty())
    return "a task needs at least one turn";
  for (size_t i = 0; i < task.turns.size(); ++i) {
    const AgentTurn &t = task.turns[i];
    std::string at = "turn " + num(int64_t(i) + 1) + ": ";
    if (t.cachedTokens < 0 || t.cachedTokens > kMaxTokens || t.newTokens < 0 ||
        t.newTokens > kMaxTokens)
      return at + "token counts must be in [0, 2^40]";
    if (t.promptTokens() < 1)
      return at + "the prompt is empty (cached_tokens + new_tokens = 0)";
    if (t.outputTokens < 1 || t.outputTokens > kMaxTokens)
      return at + "output_tokens (" + num(t.outputTokens) +
             ") must be in [1, 2^40]";
    if (!(t.toolLatency >= 0) || !std::isfinite(t.toolLatency))
      return at + "tool_latency must be a finite number >= 0";
    if (!t.mtpAccepted.empty() || t.outputTokens > 1) {
      int64_t covered = 0;
      for (int32_t a : t.mtpAccepted) {
        if (a < 1 || a > kMaxAccepted)
          return at + "mtp_accepted lengths must be in [1, " +
                 num(kMaxAccepted) + "]";
        covered += a;
      }
      if (!t.mtpAccepted.empty() && covered < t.outputTokens - 1)
        return at + "mtp_accepted covers " + num(covered) +
               " tokens, but the decode steps must emit output_tokens - 1 "
               "= " +
               num(t.outputTokens - 1);
    }
  }
  return "";
}

TraceRead parseTrajectories(std::string_view text) {
  TraceRead out;
  int64_t line = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos)
      end = text.size();
    ++line;
    std::string_view row = text.substr(pos, end - pos);
    pos = end + 1;
    if (!row.empty() && row.back() == '\r')
      row.remove_suffix(1);
    if (row.find_first_not_of(" \t") == std::string_view::npos)
      continue;

    json j = json::parse(row.begin(), row.end(), nullptr,
                         /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      SyntaxErrorFinder finder;
      json::sax_parse(row.begin(), row.end(), &finder);
      // A line cut short (a truncated file) fails at its end.
      out.errors.push_back({line, columnOf(row, finder.byte),
                            "not valid JSON (" + finder.message + ")"});
      continue;
    }
    auto turns = j.is_object() ? j.find("turns") : j.end();
    if (!j.is_object() || turns == j.end() || !turns->is_array() ||
        turns->empty()) {
      out.errors.push_back(
          {line, 0, "expected a JSON object with a non-empty \"turns\" list"});
      continue;
    }
    AgentTask task;
    auto id = j.find("id");
    if (id != j.end()) {
      if (!id->is_string()) {
        out.errors.push_back({line, 0, "\"id\" must be a string"});
        continue;
      }
      task.id = id->get<std::string>();
    } else {
      task.id = "line-" + num(line);
    }
    task.turns.resize(turns->size());
    std::string error;
    for (size_t i = 0; i < turns->size() && error.empty(); ++i) {
      std::string e = readTurn((*turns)[i], task.turns[i]);
      if (!e.empty())
        error = "turn " + num(int64_t(i) + 1) + ": " + e;
    }
    if (error.empty())
      error = checkAgentTask(task);
    if (!error.empty()) {
      out.errors.push_back({line, 0, error});
      continue;
    }
    out.tasks.push_back(std::move(task));
  }
  if (out.errors.empty() && out.tasks.empty())
    out.errors.push_back({0, 0, "the trajectories hold no tasks"});
  if (!out.errors.empty())
    out.tasks.clear();
  return out;
}

TraceRead readTrajectoriesFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    TraceRead out;
    out.errors.push_back(
        {0, 0, "cannot read trajectories file '" + path + "'"});
    return out;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return parseTrajectories(buffer.str());
}

std::string writeTrajectories(const std::vector<AgentTask> &tasks) {
  std::string out;
  for (const AgentTask &task : tasks) {
    nlohmann::ordered_json j;
    j["id"] = task.id;
    nlohmann::ordered_json turns = nlohmann::ordered_json::array();
    for (const AgentTurn &t : task.turns) {
      nlohmann::ordered_json turn;
      turn["cached_tokens"] = t.cachedTokens;
      turn["new_tokens"] = t.newTokens;
      turn["output_tokens"] = t.outputTokens;
      turn["tool_latency"] = t.toolLatency;
      if (!t.mtpAccepted.empty())
        turn["mtp_accepted"] = t.mtpAccepted;
      turns.push_back(std::move(turn));
    }
    j["turns"] = std::move(turns);
    out += j.dump();
    out += '\n';
  }
  return out;
}

} // namespace plexus::serving
