//===- TrajectoryTest.cpp - The JSONL trajectory format -------------------===//
#include "passes/Serving/Trajectory.h"

#include "ServingFixtures.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

using namespace plexus::serving;
using namespace plexus::serving::testing;

TEST(Trajectory, ReadsTheDocumentedFields) {
  TraceRead r = parseTrajectories(
      R"({"id": "swe-17", "turns": [{"cached_tokens": 0, "new_tokens": 8000, )"
      R"("output_tokens": 5, "tool_latency": 2.5, "mtp_accepted": [4]}, )"
      R"({"cached_tokens": 8005, "new_tokens": 1500, "output_tokens": 1, )"
      R"("tool_latency": 0}]})"
      "\n");
  ASSERT_TRUE(r.ok()) << r.errors[0].str();
  ASSERT_EQ(r.tasks.size(), 1u);
  const AgentTask &t = r.tasks[0];
  EXPECT_EQ(t.id, "swe-17");
  ASSERT_EQ(t.turns.size(), 2u);
  EXPECT_EQ(t.turns[0].cachedTokens, 0);
  EXPECT_EQ(t.turns[0].newTokens, 8000);
  EXPECT_EQ(t.turns[0].outputTokens, 5);
  EXPECT_EQ(t.turns[0].toolLatency, 2.5);
  EXPECT_EQ(t.turns[0].mtpAccepted, (std::vector<int32_t>{4}));
  EXPECT_EQ(t.turns[0].contextAfter(), 8005);
  EXPECT_EQ(t.turns[1].cachedTokens, 8005);
  EXPECT_TRUE(t.turns[1].mtpAccepted.empty());
}

TEST(Trajectory, WriterRoundTrips) {
  std::vector<AgentTask> tasks = {
      task("a", {turn(0, 100, 7, 0.1, {3, 1, 2}), turn(107, 20, 1, 1e-3)}),
      task("b \"quoted\"", {turn(0, 1, 1, 3.0)}),
      task("c", {turn(5, 0, 2, 2.718281828459045)})};
  std::string text = writeTrajectories(tasks);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);
  TraceRead r = parseTrajectories(text);
  ASSERT_TRUE(r.ok()) << r.errors[0].str();
  EXPECT_EQ(r.tasks, tasks);
}

TEST(Trajectory, BadLinesCarryTheirLineNumbers) {
  std::string text =
      R"({"turns": [{"cached_tokens": 0, "new_tokens": 1, )"
      R"("output_tokens": 1, "tool_latency": 0}]})"
      "\n"
      "\n" // blank, skipped but counted
      R"({"turns": [{"cached_tokens": 0,, "new_tokens": 1}]})"
      "\n"
      R"({"turns": [{"cached_tokens": 0, "new_tokens": 1, "tool_latency": 0}]})"
      "\n"
      R"({"turns": []})"
      "\n"
      R"([1, 2])"
      "\n";
  TraceRead r = parseTrajectories(text);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.tasks.empty()); // all or nothing
  ASSERT_EQ(r.errors.size(), 4u);
  EXPECT_EQ(r.errors[0].line, 3);
  EXPECT_EQ(r.errors[0].column, 32); // the second comma
  EXPECT_NE(r.errors[0].message.find("not valid JSON"), std::string::npos);
  EXPECT_EQ(r.errors[1].line, 4);
  EXPECT_EQ(r.errors[1].message, "turn 1: missing \"output_tokens\"");
  EXPECT_EQ(r.errors[1].str(), "4: turn 1: missing \"output_tokens\"");
  EXPECT_EQ(r.errors[2].line, 5);
  EXPECT_EQ(r.errors[3].line, 6);
  EXPECT_EQ(r.errors[3].message,
            "expected a JSON object with a non-empty \"turns\" list");
}

TEST(Trajectory, TruncatedFileFailsOnItsLastLine) {
  std::string full = writeTrajectories(
      {task("a", {turn(0, 10, 2, 1.0)}), task("b", {turn(0, 10, 2, 1.0)})});
  // Cut the second line short, as a copy interrupted mid-write would.
  std::string cut = full.substr(0, full.size() - 12);
  TraceRead r = parseTrajectories(cut);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].line, 2);
  EXPECT_NE(r.errors[0].message.find("not valid JSON"), std::string::npos);
  EXPECT_GT(r.errors[0].column, 40); // at the end of what is there
}

TEST(Trajectory, ValueErrors) {
  auto firstError = [](const std::string &turnJson) {
    TraceRead r = parseTrajectories("{\"turns\": [" + turnJson + "]}");
    return r.ok() ? std::string() : r.errors[0].message;
  };
  EXPECT_EQ(firstError(
                R"({"cached_tokens": -1, "new_tokens": 1, "output_tokens": 1, )"
                R"("tool_latency": 0})"),
            "turn 1: \"cached_tokens\" (-1) must be in [0, 2^40]");
  EXPECT_EQ(
      firstError(
          R"({"cached_tokens": 0, "new_tokens": 1.5, "output_tokens": 1, )"
          R"("tool_latency": 0})"),
      "turn 1: \"new_tokens\" must be an integer");
  EXPECT_EQ(
      firstError(R"({"cached_tokens": 0, "new_tokens": 1, "output_tokens": 0, )"
                 R"("tool_latency": 0})"),
      "turn 1: \"output_tokens\" (0) must be in [1, 2^40]");
  EXPECT_EQ(
      firstError(R"({"cached_tokens": 0, "new_tokens": 1, "output_tokens": 1, )"
                 R"("tool_latency": -2})"),
      "turn 1: \"tool_latency\" must be a finite number >= 0");
  EXPECT_EQ(
      firstError(R"({"cached_tokens": 0, "new_tokens": 1, "output_token": 1, )"
                 R"("tool_latency": 0})")
          .substr(0, 31),
      "turn 1: unknown key \"output_tok");
  EXPECT_EQ(
      firstError(R"({"cached_tokens": 0, "new_tokens": 0, "output_tokens": 1, )"
                 R"("tool_latency": 0})"),
      "turn 1: the prompt is empty (cached_tokens + new_tokens = 0)");
  EXPECT_EQ(
      firstError(R"({"cached_tokens": 0, "new_tokens": 1, "output_tokens": 9, )"
                 R"("tool_latency": 0, "mtp_accepted": [4, 3]})"),
      "turn 1: mtp_accepted covers 7 tokens, but the decode steps must "
      "emit output_tokens - 1 = 8");
  EXPECT_EQ(
      firstError(R"({"cached_tokens": 0, "new_tokens": 1, "output_tokens": 2, )"
                 R"("tool_latency": 0, "mtp_accepted": [0]})"),
      "turn 1: \"mtp_accepted\"[0] must be an integer in [1, 1024]");
  TraceRead badId = parseTrajectories(
      R"({"id": 7, "turns": [{"cached_tokens": 0, "new_tokens": 1, )"
      R"("output_tokens": 1, "tool_latency": 0}]})");
  ASSERT_EQ(badId.errors.size(), 1u);
  EXPECT_EQ(badId.errors[0].message, "\"id\" must be a string");
}

TEST(Trajectory, EmptyInputAndCrlf) {
  TraceRead empty = parseTrajectories("\n  \n");
  ASSERT_EQ(empty.errors.size(), 1u);
  EXPECT_EQ(empty.errors[0].line, 0);
  EXPECT_EQ(empty.errors[0].message, "the trajectories hold no tasks");
  TraceRead crlf = parseTrajectories(
      "{\"turns\": [{\"cached_tokens\": 0, \"new_tokens\": 3, "
      "\"output_tokens\": 1, \"tool_latency\": 0}]}\r\n");
  ASSERT_TRUE(crlf.ok());
  EXPECT_EQ(crlf.tasks[0].id, "line-1");
}

TEST(Trajectory, Files) {
  TraceRead missing = readTrajectoriesFile("/nonexistent/traces.jsonl");
  ASSERT_EQ(missing.errors.size(), 1u);
  EXPECT_EQ(missing.errors[0].line, 0);
  std::string path = ::testing::TempDir() + "serving-trajectories.jsonl";
  std::vector<AgentTask> tasks = {task("x", {turn(0, 4, 2, 0.5, {1})})};
  {
    std::ofstream out(path);
    out << writeTrajectories(tasks);
  }
  TraceRead r = readTrajectoriesFile(path);
  std::remove(path.c_str());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.tasks, tasks);
}
