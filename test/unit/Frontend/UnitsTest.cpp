//===- UnitsTest.cpp - Units of .plx quantities ---------------------------===//
#include "frontend/Units.h"

#include <gtest/gtest.h>

using namespace plexus::frontend;

TEST(Units, PlainCountsTakeDecimalAndBinaryPrefixes) {
  EXPECT_EQ(lookupUnit("")->scale, 1.0);
  EXPECT_EQ(lookupUnit("K")->scale, 1000.0);
  EXPECT_EQ(lookupUnit("Ki")->scale, 1024.0);
  EXPECT_EQ(lookupUnit("M")->scale, 1e6);
  EXPECT_EQ(lookupUnit("Mi")->scale, 1048576.0);
  EXPECT_EQ(lookupUnit("Gi")->dimension, Dimension::Count);
  // 384Ki tokens = 384 * 1024 = 393216.
  EXPECT_EQ(384 * lookupUnit("Ki")->scale, 393216.0);
}

TEST(Units, BytesAndBandwidths) {
  EXPECT_EQ(lookupUnit("GB")->dimension, Dimension::Bytes);
  EXPECT_EQ(lookupUnit("GB")->scale, 1e9);
  EXPECT_EQ(lookupUnit("GiB")->scale, 1073741824.0);
  EXPECT_EQ(lookupUnit("GB/s")->dimension, Dimension::BytesPerSecond);
  EXPECT_EQ(lookupUnit("GB/s")->scale, 1e9);
  // 400 Gb/s is 50 GB/s: bits are divided by 8.
  EXPECT_EQ(400 * lookupUnit("Gb/s")->scale, 50e9);
  EXPECT_EQ(lookupUnit("TB/s")->scale, 1e12);
  EXPECT_EQ(lookupUnit("GiB/s")->scale, 1073741824.0);
}

TEST(Units, ComputeRatesAndTimes) {
  EXPECT_EQ(lookupUnit("TFLOPS")->dimension, Dimension::FlopsPerSecond);
  EXPECT_EQ(lookupUnit("TFLOPS")->scale, 1e12);
  EXPECT_EQ(lookupUnit("PFLOP/s")->scale, 1e15);
  EXPECT_EQ(lookupUnit("s")->dimension, Dimension::Seconds);
  EXPECT_EQ(lookupUnit("ms")->scale, 1e-3);
  EXPECT_EQ(lookupUnit("us")->scale, 1e-6);
}

TEST(Units, UnknownSpellingsAreRejected) {
  EXPECT_FALSE(lookupUnit("Gbit/s"));
  EXPECT_FALSE(lookupUnit("gb"));
  EXPECT_FALSE(lookupUnit("k")); // lower-case k is not a prefix
  EXPECT_FALSE(lookupUnit("KiKi"));
  EXPECT_FALSE(lookupUnit("B/ms"));
}

TEST(Units, FormatBytesUsesIecUnits) {
  EXPECT_EQ(formatBytes(512), "512 B");
  EXPECT_EQ(formatBytes(1536), "1.50 KiB");
  EXPECT_EQ(formatBytes(40.0 * 1024 * 1024 * 1024), "40.00 GiB");
}

TEST(Units, FormatQuantityPicksTheUnitAUserWouldWrite) {
  EXPECT_EQ(formatQuantity(100000, Dimension::Count), "100000");
  EXPECT_EQ(formatQuantity(1 << 20, Dimension::Bytes), "1 MiB");
  EXPECT_EQ(formatQuantity(80e9, Dimension::Bytes), "80 GB");
  EXPECT_EQ(formatQuantity(1e3, Dimension::BytesPerSecond), "1 KB/s");
  EXPECT_EQ(formatQuantity(50e9, Dimension::BytesPerSecond), "50 GB/s");
  EXPECT_EQ(formatQuantity(1e6, Dimension::FlopsPerSecond), "1 MFLOPS");
  EXPECT_EQ(formatQuantity(86400, Dimension::Seconds), "86400 s");
}
