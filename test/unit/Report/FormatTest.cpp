//===- FormatTest.cpp - Number formats of the plxc report -----------------===//
#include "codegen/Report/SpecReport.h"

#include <gtest/gtest.h>

using namespace plexus::report;

TEST(ReportFormat, CountsUseDecimalSuffixes) {
  EXPECT_EQ(formatCount(999), "999");
  EXPECT_EQ(formatCount(4'718'592), "4.72 M");         // tiny-cpu's model
  EXPECT_EQ(formatCount(6'854'422'528), "6.85 B");     // GPT-7B
  EXPECT_EQ(formatCount(356'784'522'240), "356.78 B"); // GLM-4.5-like
  EXPECT_EQ(formatCount(2e12), "2.00 T");
}

TEST(ReportFormat, FiguresUseFourSignificantDigits) {
  EXPECT_EQ(formatDecimal(312e12, "FLOP/s"), "312 TFLOP/s");
  EXPECT_EQ(formatDecimal(50e9, "B/s"), "50 GB/s");
  EXPECT_EQ(formatDecimal(50.064e15, "B/s"), "50.06 PB/s");
  EXPECT_EQ(formatDecimal(3'432'038'400, ""), "3.432 G");
  EXPECT_EQ(formatDecimal(114'000, ""), "114 K");
  EXPECT_EQ(formatDecimal(68.72e9, "B"), "68.72 GB");
}
