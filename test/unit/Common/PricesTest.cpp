//===- PricesTest.cpp - The price table's merge and rules -----------------===//
#include "dialects/Common/Prices.h"

#include <gtest/gtest.h>

using namespace plexus::fabric;

// A quoted class of a default rate replaces that class in place; a new rate
// joins in ascending order. The defaults have 400, 800 and 1600 Gb/s.
TEST(Prices, MergeReplacesOrInsertsByRate) {
  PriceTable t;
  mergeSpeedClass(t, {800, 500, 700, 32, 10});
  ASSERT_EQ(t.speeds.size(), 3u);
  EXPECT_EQ(t.speeds[1], (SpeedClassPrice{800, 500, 700, 32, 10}));
  mergeSpeedClass(t, {200, 100, 150, 32, 0});
  mergeSpeedClass(t, {3200, 2000, 2500, 32, 0});
  mergeSpeedClass(t, {1000, 700, 900, 64, 0});
  ASSERT_EQ(t.speeds.size(), 6u);
  const double rates[] = {200, 400, 800, 1000, 1600, 3200};
  for (size_t i = 0; i < 6; ++i)
    EXPECT_EQ(t.speeds[i].gbps, rates[i]);
  EXPECT_TRUE(checkPrices(t).empty());
}

TEST(Prices, DefaultsKeepTheRules) {
  EXPECT_TRUE(checkPrices(PriceTable()).empty());
  EXPECT_EQ(PriceTable(), PriceTable());
}

// Each broken rule is reported with its field and class index.
TEST(Prices, RulesNameFieldAndClass) {
  PriceTable t;
  t.ocsPortUsd = -1;
  t.ocsRadix = 1;
  t.speeds = {{800, 600, 800, 64, 0}, {400, 350, 400, 1, -2}};
  std::vector<PriceProblem> p = checkPrices(t);
  ASSERT_EQ(p.size(), 5u);
  EXPECT_EQ(p[0].field, "ocs_port");
  EXPECT_EQ(p[1].field, "ocs_radix");
  EXPECT_EQ(p[2].field, "speeds"); // 400 after 800
  EXPECT_EQ(p[2].index, 1);
  EXPECT_EQ(p[3].field, "nic");
  EXPECT_EQ(p[4].message, "a switch has at least 2 ports, got switch_radix = 1");
  t = PriceTable();
  t.speeds.clear();
  ASSERT_EQ(checkPrices(t).size(), 1u);
  EXPECT_EQ(checkPrices(t)[0].message, "the price table has no speed class");
}
