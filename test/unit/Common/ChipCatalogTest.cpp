//===- ChipCatalogTest.cpp - The built-in chip catalog --------------------===//
//
// Every figure of every chip, against docs/cost-model.md (GB = 1e9 bytes,
// NVLink both directions summed, dense tensor FLOP/s).
//
//===----------------------------------------------------------------------===//

#include "dialects/Common/ChipCatalog.h"

#include <gtest/gtest.h>

#include <iterator>

using namespace plexus::cost;

namespace {

struct Expected {
  const char *name;
  double bf16TFlops, fp8TFlops;
  int64_t hbmBytes;
  double hbmGBps, nvlinkGBps;
};

constexpr int64_t GB = 1000000000;

const Expected kExpected[] = {
    {"A100_40GB", 312, 0, 40 * GB, 1555, 600},
    {"A100_80GB", 312, 0, 80 * GB, 2039, 600},
    {"A800", 312, 0, 80 * GB, 2039, 400},
    {"H100", 989, 1979, 80 * GB, 3350, 900},
    {"H800", 989, 1979, 80 * GB, 3350, 400},
    {"H200", 989, 1979, 141 * GB, 4800, 900},
    {"GH200", 989, 1979, 96 * GB, 4000, 900},
    {"B200", 2250, 4500, 180 * GB, 8000, 1800},
    // 64 GiB = 64 * 2^30 = 68,719,476,736 bytes.
    {"CPU", 2, 0, 68719476736LL, 100, 0},
};

TEST(ChipCatalog, EveryFigureOfEveryChip) {
  const std::vector<ChipSpec> &catalog = chipCatalog();
  ASSERT_EQ(catalog.size(), std::size(kExpected));
  for (size_t i = 0; i < catalog.size(); ++i) {
    const ChipSpec &chip = catalog[i];
    const Expected &want = kExpected[i];
    SCOPED_TRACE(want.name);
    EXPECT_EQ(chip.name, want.name); // also fixes the order
    EXPECT_FALSE(chip.displayName.empty());
    EXPECT_DOUBLE_EQ(chip.bf16Flops, want.bf16TFlops * 1e12);
    EXPECT_DOUBLE_EQ(chip.fp8Flops, want.fp8TFlops * 1e12);
    EXPECT_EQ(chip.hbmBytes, want.hbmBytes);
    EXPECT_DOUBLE_EQ(chip.hbmBandwidth, want.hbmGBps * 1e9);
    EXPECT_DOUBLE_EQ(chip.nvlinkBandwidth, want.nvlinkGBps * 1e9);
  }
}

TEST(ChipCatalog, FindsByExactKey) {
  std::optional<ChipSpec> h100 = findChip("H100");
  ASSERT_TRUE(h100.has_value());
  EXPECT_EQ(h100->name, "H100");
  EXPECT_EQ(h100->hbmBytes, 80 * GB);
  ASSERT_TRUE(findChip("CPU").has_value());
  // Keys are case-sensitive and exact, as written in .plx.
  EXPECT_FALSE(findChip("h100").has_value());
  EXPECT_FALSE(findChip("A100").has_value());
  EXPECT_FALSE(findChip("H100 ").has_value());
  EXPECT_FALSE(findChip("").has_value());
}

TEST(ChipCatalog, KeysForDiagnostics) {
  EXPECT_EQ(chipCatalogKeys(),
            "A100_40GB, A100_80GB, A800, H100, H800, H200, GH200, B200, CPU");
}

TEST(ChipCatalog, FamilyRelations) {
  // The export variants differ from their originals only in NVLink.
  auto sameExceptNvlink = [](const char *a, const char *b) {
    ChipSpec x = *findChip(a), y = *findChip(b);
    EXPECT_EQ(x.bf16Flops, y.bf16Flops) << a << " vs " << b;
    EXPECT_EQ(x.fp8Flops, y.fp8Flops) << a << " vs " << b;
    EXPECT_EQ(x.hbmBytes, y.hbmBytes) << a << " vs " << b;
    EXPECT_EQ(x.hbmBandwidth, y.hbmBandwidth) << a << " vs " << b;
    EXPECT_EQ(y.nvlinkBandwidth, 400e9) << b;
  };
  sameExceptNvlink("A100_80GB", "A800");
  sameExceptNvlink("H100", "H800");
  // Where FP8 exists, dense FP8 is about twice dense BF16.
  for (const ChipSpec &chip : chipCatalog()) {
    if (chip.fp8Flops > 0) {
      EXPECT_NEAR(chip.fp8Flops / chip.bf16Flops, 2.0, 0.01) << chip.name;
    }
  }
}

} // namespace
