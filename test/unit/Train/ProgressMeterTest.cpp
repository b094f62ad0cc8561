//===- ProgressMeterTest.cpp - Progress lines for stages that run long ----===//
//
// The meter's rules, with waits that only bound what may be printed (a
// slow machine prints later, never differently): a run shorter than
// `after` prints nothing; a stage that outlives it is printed, with the
// stage's own text; at most one line per `after`; a long stage is repeated
// with its elapsed seconds; a cleared stage is not printed.
//
//===----------------------------------------------------------------------===//
#include "passes/Train/ProgressMeter.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using plexus::train::ProgressMeter;
using namespace std::chrono_literals;

struct Lines {
  std::mutex lock;
  std::vector<std::string> lines;
  ProgressMeter::Sink sink() {
    return [this](const std::string &line) {
      std::lock_guard<std::mutex> guard(lock);
      lines.push_back(line);
    };
  }
  std::vector<std::string> get() {
    std::lock_guard<std::mutex> guard(lock);
    return lines;
  }
  /// Waits (up to a minute) until there are `n` lines.
  bool waitFor(size_t n) {
    for (int i = 0; i < 6000; ++i) {
      if (get().size() >= n)
        return true;
      std::this_thread::sleep_for(10ms);
    }
    return false;
  }
};

TEST(ProgressMeter, AQuickRunPrintsNothing) {
  Lines out;
  {
    ProgressMeter meter(out.sink(), /*after=*/60s);
    for (int i = 0; i < 100; ++i)
      meter.stage("stage " + std::to_string(i));
  }
  EXPECT_TRUE(out.get().empty());
}

TEST(ProgressMeter, AStageThatRunsLongIsPrintedAsItIs) {
  Lines out;
  ProgressMeter meter(out.sink(), /*after=*/20ms, /*every=*/60s);
  meter.stage("planning step 1 of 2: static layout 3 of 9");
  ASSERT_TRUE(out.waitFor(1));
  EXPECT_EQ(out.get().front(), "planning step 1 of 2: static layout 3 of 9");
}

TEST(ProgressMeter, AtMostOneLinePerInterval) {
  Lines out;
  const auto start = std::chrono::steady_clock::now();
  {
    ProgressMeter meter(out.sink(), /*after=*/100ms, /*every=*/60s);
    for (int i = 0; i < 400; ++i) {
      meter.stage("stage " + std::to_string(i));
      std::this_thread::sleep_for(1ms);
    }
  }
  const double elapsed = std::chrono::duration<double>(
                             std::chrono::steady_clock::now() - start)
                             .count();
  // Nothing in the first 100 ms, then at most one line per 100 ms.
  EXPECT_LE(static_cast<double>(out.get().size()), elapsed / 0.1 + 1)
      << elapsed << " s";
  for (const std::string &line : out.get())
    EXPECT_EQ(line.rfind("stage ", 0), 0u) << line;
}

TEST(ProgressMeter, ALongStageIsRepeatedWithItsSeconds) {
  Lines out;
  ProgressMeter meter(out.sink(), /*after=*/10ms, /*every=*/30ms);
  meter.stage("solving");
  ASSERT_TRUE(out.waitFor(2));
  const std::vector<std::string> lines = out.get();
  EXPECT_EQ(lines[0], "solving");
  EXPECT_EQ(lines[1].rfind("solving (still running, ", 0), 0u) << lines[1];
}

TEST(ProgressMeter, ACurrentStageIsPrintedAtOnceAndAClearedOneNoMore) {
  Lines out;
  ProgressMeter meter(out.sink(), /*after=*/200ms, /*every=*/50ms);
  std::this_thread::sleep_for(300ms);
  meter.stage("a"); // the run is long and nothing was printed: at once
  ASSERT_EQ(out.get(), std::vector<std::string>{"a"});
  // Left running, "a" would be repeated every 50 ms; cleared, nothing more
  // is printed.
  meter.clear();
  const size_t cleared = out.get().size();
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(out.get().size(), cleared);
}

} // namespace
