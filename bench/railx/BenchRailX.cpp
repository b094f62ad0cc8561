//===- BenchRailX.cpp - RailX abstract claims next to our model -----------===//
//
// Prints, side by side with the RailX abstract (arXiv 2507.18889):
//   1. the diameter of RailX grids from 10K to 200K chips;
//   2. cost per injection and per bisection bandwidth, and their ratios to a
//      non-blocking fat-tree of the same chips and per-chip bandwidth;
//   3. the total network cost at 200K chips and 1.8 TB/s per chip, with the
//      part-by-part breakdown and the readings that change it;
//   4. the time and peak memory to build and analyse a 100K-chip fabric,
//      against the budget (10 s, 4 GB).
// Everything is deterministic except the timings and memory of part 4. The
// prices are PriceTable's defaults (docs/railx.md, "Network cost"). "1.8 TB"
// is read as NVLink 5's figure is stated, both directions together: 900 GB/s
// per chip and direction, 36 rails per dimension at 112 x 112 x 16
// (docs/railx.md, "Which 1.8 TB/s"). With `--markdown FILE` the claims,
// readings and sensitivity tables are also written as markdown
// (docs/generated/railx.md).
//
//===----------------------------------------------------------------------===//

#include "bench/common/PaperTable.h"
#include "passes/Fabric/FabricGraph.h"
#include "passes/Fabric/NetworkCost.h"

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

using namespace plexus::fabric;
using plexus::bench::format;
using plexus::bench::MarkdownDoc;
using plexus::bench::MarkdownTable;

namespace {

/// The fabric the claims are checked on: 112 x 112 nodes of 16 chips, 36
/// undirected rails per dimension at 800 Gb/s = 900 GB/s per chip and
/// direction, 1.8 TB/s both ways (examples/railx-200k.plx).
constexpr int64_t kClaimRails = 36;

constexpr double kLink800 = 800e9 / 8; // bytes/s of one 800 Gb/s link
constexpr double kTimeBudgetS = 10.0;
constexpr double kMemoryBudgetBytes = 4.0 * 1024 * 1024 * 1024;

struct RailXConfig {
  int64_t rows, cols, chipsPerNode, rails;
  bool directed;
};

TopologyShape shapeOf(const RailXConfig &c) {
  TopologyShape t;
  t.kind = TopologyKind::RailX;
  t.linkBandwidth = kLink800;
  t.rows = c.rows;
  t.cols = c.cols;
  t.rails = c.rails;
  t.directed = c.directed;
  return t;
}

bool build(FabricGraph &g, const RailXConfig &c) {
  FabricBuildResult r = g.build(shapeOf(c), c.rows * c.cols, c.chipsPerNode);
  for (const TopologyProblem &p : r.problems)
    std::printf("  build problem (%s): %s\n", p.field.c_str(),
                p.message.c_str());
  return r.ok();
}

/// 12345678 -> "12,345,678".
std::string grouped(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  std::string digits(buf), out;
  size_t start = digits[0] == '-' ? 1 : 0;
  for (size_t i = 0; i < digits.size(); ++i) {
    out.push_back(digits[i]);
    size_t left = digits.size() - 1 - i;
    if (i >= start && left > 0 && left % 3 == 0)
      out.push_back(',');
  }
  return out;
}

std::string usd(double v) {
  char buf[64];
  if (v >= 1e9)
    std::snprintf(buf, sizeof buf, "$%.2fB", v / 1e9);
  else if (v >= 1e6)
    std::snprintf(buf, sizeof buf, "$%.1fM", v / 1e6);
  else
    std::snprintf(buf, sizeof buf, "$%s", grouped(v).c_str());
  return buf;
}

std::string config(const RailXConfig &c) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%lldx%lld x%lld, R=%lld%s",
                static_cast<long long>(c.rows), static_cast<long long>(c.cols),
                static_cast<long long>(c.chipsPerNode),
                static_cast<long long>(c.rails), c.directed ? " directed" : "");
  return buf;
}

double peakRssBytes() {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) * 1024.0; // Linux: kilobytes
}

/// Build, diameter, bisection, cost and fat-tree comparison of one fabric.
struct Timed {
  double seconds = 0, peakBytes = 0;
  int64_t chips = 0, diameter = 0;
  bool ok = false;
};

Timed timeBuildAndAnalyse(const RailXConfig &c) {
  Timed t;
  auto start = std::chrono::steady_clock::now();
  FabricGraph g;
  if (build(g, c)) {
    t.diameter = g.diameter();
    volatile double bisection = g.bisectionBandwidth();
    (void)bisection;
    ComparisonResult cmp = compareWithFatTree(g, PriceTable());
    t.ok = cmp.ok();
    t.chips = g.nodes * g.chipsPerNode;
  }
  t.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  t.peakBytes = peakRssBytes();
  return t;
}

struct Findings {
  bool allDiametersInRange = true;
  int64_t claimDiameter = 0;
  double injectionRatio = 0, bisectionRatio = 0, total = 0;
};

void printDiameters(Findings &found) {
  std::printf("\n[1] Diameter in inter-node hops\n");
  std::printf("    claim: 2-4 inter-node hops beyond 100K chips\n");
  std::printf("    %-28s %9s %6s %6s %9s  %s\n", "railx grid x chips, rails",
              "chips", "row d", "col d", "diameter", "in 2-4");
  const std::vector<RailXConfig> configs = {
      {25, 25, 16, 12, false},   // 10K: rows of 25 = 2R+1
      {50, 50, 16, 25, false},   // 40K
      {80, 80, 16, 40, false},   // 102K: even rows, R = n/2
      {80, 80, 16, 24, false},   // 102K, too few rails for one hop
      {112, 112, 16, 72, false}, // 200K at 1.8 TB/s per chip
      {112, 112, 16, 56, false}, // 200K, R = n/2: the fewest for one hop
      {112, 112, 16, 36, false}, // 200K, half the rails
      {112, 112, 16, 144, true}, // 200K directed (K*_112 search)
      {128, 128, 16, 64, false}, // 262K
  };
  for (const RailXConfig &c : configs) {
    FabricGraph g;
    if (!build(g, c))
      continue;
    int64_t d = g.diameter();
    found.allDiametersInRange &= d >= 2 && d <= 4;
    if (c.rows == 112 && c.rails == kClaimRails && !c.directed)
      found.claimDiameter = d;
    std::printf("    %-28s %9s %6d %6d %9lld  %s\n", config(c).c_str(),
                grouped(static_cast<double>(g.nodes * g.chipsPerNode)).c_str(),
                g.row.diameter, g.col.diameter, static_cast<long long>(d),
                d >= 2 && d <= 4 ? "yes" : "no");
  }
}

void printParts(const CostBreakdown &b, const char *indent) {
  std::printf(
      "%stransceivers  %13s x %-6s = %s\n", indent,
      grouped(static_cast<double>(b.transceivers)).c_str(),
      usd(b.transceivers ? b.transceiverUsd / b.transceivers : 0).c_str(),
      usd(b.transceiverUsd).c_str());
  if (b.ocsPorts)
    std::printf("%sOCS ports     %13s x %-6s = %s  (%s OCS boxes)\n", indent,
                grouped(static_cast<double>(b.ocsPorts)).c_str(),
                usd(b.ocsUsd / b.ocsPorts).c_str(), usd(b.ocsUsd).c_str(),
                grouped(static_cast<double>(b.ocsUnits)).c_str());
  if (b.switchPorts)
    std::printf("%sswitch ports  %13s x %-6s = %s  (%s switch boxes)\n", indent,
                grouped(static_cast<double>(b.switchPorts)).c_str(),
                usd(b.switchUsd / b.switchPorts).c_str(),
                usd(b.switchUsd).c_str(),
                grouped(static_cast<double>(b.switchUnits)).c_str());
  std::printf("%sfibres        %13s x %-6s = %s\n", indent,
              grouped(static_cast<double>(b.fibres)).c_str(),
              usd(b.fibres ? b.fibreUsd / b.fibres : 0).c_str(),
              usd(b.fibreUsd).c_str());
  if (b.nicUsd > 0)
    std::printf("%sNIC ports     %13s          = %s\n", indent,
                grouped(static_cast<double>(b.nicPorts)).c_str(),
                usd(b.nicUsd).c_str());
  std::printf("%stotal                                = %s\n", indent,
              usd(b.totalUsd).c_str());
}

/// USD per GB/s (1e9 bytes/s).
double perGBps(double usdPerBytePerS) { return usdPerBytePerS * 1e9; }

/// The 800 Gb/s class of a table (the defaults have one).
SpeedClassPrice &class800(PriceTable &p) {
  for (SpeedClassPrice &s : p.speeds)
    if (s.gbps == 800)
      return s;
  return p.speeds.front();
}

/// What moves the ratios and the total: one price or design choice at a
/// time, then all prices at the low and at the high end of their ranges
/// (docs/railx.md, "Network cost").
void printSensitivity(const FabricGraph &g, MarkdownDoc &doc) {
  struct Variant {
    const char *name;
    PriceTable prices;
  };
  std::vector<Variant> variants;
  variants.push_back({"defaults", PriceTable()});
  {
    PriceTable p;
    class800(p).switchRadix = 128; // a 102.4 Tb/s box: 3 tiers suffice
    variants.push_back({"fat-tree of 128-port 800G switches", p});
  }
  {
    PriceTable p;
    class800(p).nicPortUsd = 1000; // only the tree has NIC ports
    variants.push_back({"fat-tree chips need NICs ($1,000/port)", p});
  }
  {
    PriceTable p;
    p.ocsPortUsd = 600;
    variants.push_back({"OCS port $600", p});
  }
  {
    PriceTable p;
    p.ocsPortUsd = 150;
    p.fibreUsd = 20;
    SpeedClassPrice &s = class800(p);
    s.transceiverUsd = 400;
    s.switchPortUsd = 500;
    variants.push_back({"all low: $400/$150/$20, switch $500", p});
  }
  {
    PriceTable p;
    p.ocsPortUsd = 600;
    p.fibreUsd = 100;
    SpeedClassPrice &s = class800(p);
    s.transceiverUsd = 1000;
    s.switchPortUsd = 1200;
    variants.push_back({"all high: $1,000/$600/$100, switch $1,200", p});
  }
  std::printf("    what changes it (prices written transceiver/OCS port/fibre, "
              "800G class):\n");
  std::printf("    %-44s %9s %9s %6s %9s %9s\n", "variant", "railx", "fat-tree",
              "tiers", "inj ratio", "bis ratio");
  MarkdownTable &t = doc.table(
      "What moves the figures (800G class; transceiver / OCS port / fibre)");
  t.header = {"prices", "RailX",           "fat-tree",
              "tiers",  "injection ratio", "bisection ratio"};
  for (const Variant &v : variants) {
    ComparisonResult r = compareWithFatTree(g, v.prices);
    if (!r.ok())
      continue;
    const FatTreeComparison &k = r.comparison;
    t.row({v.name, usd(k.fabric.parts.totalUsd),
           usd(k.fatTree.cost.parts.totalUsd), std::to_string(k.fatTree.tiers),
           format("%.1f %%", 100 * k.injectionRatio),
           format("%.1f %%", 100 * k.bisectionRatio)});
    std::printf("    %-44s %9s %9s %6lld %8.1f%% %8.1f%%\n", v.name,
                usd(k.fabric.parts.totalUsd).c_str(),
                usd(k.fatTree.cost.parts.totalUsd).c_str(),
                static_cast<long long>(k.fatTree.tiers), 100 * k.injectionRatio,
                100 * k.bisectionRatio);
  }
}

bool printComparison(const RailXConfig &c, Findings &found, MarkdownDoc &doc) {
  std::printf("\n[2] Cost per bandwidth against a fat-tree of the same chips "
              "and per-chip injection\n");
  std::printf("    claim: per injection (all-reduce) bandwidth < 10%% of the "
              "fat-tree's; per bisection (all-to-all) < 50%%\n");
  FabricGraph g;
  if (!build(g, c))
    return false;
  ComparisonResult r = compareWithFatTree(g, PriceTable());
  if (!r.ok()) {
    for (const std::string &p : r.problems)
      std::printf("    problem: %s\n", p.c_str());
    return false;
  }
  const FatTreeComparison &k = r.comparison;
  const FatTreeDesign &ft = k.fatTree;
  found.injectionRatio = k.injectionRatio;
  found.bisectionRatio = k.bisectionRatio;
  found.total = k.fabric.parts.totalUsd;
  std::printf(
      "    railx %s at 800 Gb/s: %s chips, %.2f TB/s injection per "
      "chip, diameter %lld\n",
      config(c).c_str(), grouped(static_cast<double>(k.fabric.chips)).c_str(),
      k.fabric.injectionPerChip / 1e12, static_cast<long long>(g.diameter()));
  printParts(k.fabric.parts, "      ");
  std::printf("    fat-tree: %lld planes x one %.0f Gb/s port per chip, "
              "radix %lld, %lld tiers, non-blocking\n",
              static_cast<long long>(ft.planes), ft.linkGbps,
              static_cast<long long>(ft.radix),
              static_cast<long long>(ft.tiers));
  printParts(ft.cost.parts, "      ");
  std::printf("    %-34s %14s %14s %8s %8s %s\n", "metric", "railx", "fat-tree",
              "ratio", "claim", "met");
  std::printf("    %-34s %14.2f %14.2f\n", "injection per chip, TB/s",
              k.fabric.injectionPerChip / 1e12,
              ft.cost.injectionPerChip / 1e12);
  std::printf("    %-34s %14.1f %14.1f\n", "bisection, PB/s",
              k.fabric.bisection / 1e15, ft.cost.bisection / 1e15);
  std::printf("    %-34s %14.2f %14.2f %7.1f%% %8s %s\n",
              "USD per GB/s of injection", perGBps(k.fabric.costPerInjection),
              perGBps(ft.cost.costPerInjection), 100 * k.injectionRatio,
              "< 10%", k.injectionRatio < 0.10 ? "yes" : "no");
  std::printf("    %-34s %14.2f %14.2f %7.1f%% %8s %s\n",
              "USD per GB/s of bisection", perGBps(k.fabric.costPerBisection),
              perGBps(ft.cost.costPerBisection), 100 * k.bisectionRatio,
              "< 50%", k.bisectionRatio < 0.50 ? "yes" : "no");
  printSensitivity(g, doc);
  return true;
}

void printTotals(MarkdownDoc &doc) {
  std::printf("\n[3] Total network cost at 200K chips\n");
  std::printf("    claim: about $1.3B for 200K chips at 1.8 TB/s per chip "
              "($6,500 per chip, $3.6 per GB/s)\n");
  std::printf("    %-54s %9s %10s %5s %8s %9s %7s %s\n", "fabric", "TB/s/chip",
              "ports/chip", "diam", "total", "per chip", "$/GB/s", "vs $1.3B");
  struct Row {
    RailXConfig c;
    const char *reading;
  };
  const std::vector<Row> rows = {
      {{112, 112, 16, kClaimRails, false},
       "1.8 TB/s both ways, NVLink 5's reading: ours"},
      {{112, 112, 16, 72, false}, "1.8 TB/s per direction"},
      {{112, 112, 16, 144, true}, "1.8 TB/s per direction"},
      {{112, 112, 16, 144, false}, "twice the rails: 3.6 TB/s"},
  };
  const double claim = 1.3e9;
  MarkdownTable &t = doc.table("Total at 200K chips under each reading of "
                               "\"1.8 TB per-chip bandwidth\"");
  t.header = {"fabric (112 x 112 nodes x 16 chips)",
              "reading",
              "TB/s per chip and direction",
              "800G ports per chip",
              "diameter",
              "total",
              "per chip",
              "vs the abstract's $1.3B"};
  for (const Row &row : rows) {
    FabricGraph g;
    if (!build(g, row.c))
      continue;
    CostResult r = networkCost(g, PriceTable());
    if (!r.ok())
      continue;
    const NetworkCost &n = r.cost;
    const double perChip = n.parts.totalUsd / static_cast<double>(n.chips);
    const double ports = static_cast<double>(n.parts.transceivers) /
                         static_cast<double>(n.chips);
    std::string label = config(row.c) + " (" + row.reading + ")";
    std::printf("    %-54s %9.2f %10.0f %5lld %8s %9s %7.2f %6.2fx\n",
                label.c_str(), n.injectionPerChip / 1e12, ports,
                static_cast<long long>(g.diameter()),
                usd(n.parts.totalUsd).c_str(), usd(perChip).c_str(),
                perChip / (n.injectionPerChip / 1e9), n.parts.totalUsd / claim);
    t.row({config(row.c), row.reading,
           format("%.2f", n.injectionPerChip / 1e12), format("%.0f", ports),
           std::to_string(g.diameter()), usd(n.parts.totalUsd), usd(perChip),
           format("%.2fx", n.parts.totalUsd / claim)});
  }
  // The per-port price the claim implies, for both readings of 1.8 TB/s.
  PriceTable p;
  const double perPort = class800(p).transceiverUsd + p.ocsPortUsd + p.fibreUsd;
  const double chips = 112.0 * 112.0 * 16.0;
  std::printf("    each railx port costs %s here (800G transceiver + OCS port "
              "+ fibre); the claim implies\n",
              usd(perPort).c_str());
  std::printf("      %s per port if 1.8 TB/s is per direction (18 ports of "
              "800 Gb/s per chip),\n",
              usd(claim / (chips * 18)).c_str());
  std::printf("      %s per port if it counts both directions (9 ports per "
              "chip)\n",
              usd(claim / (chips * 9)).c_str());
  t.notes.push_back(
      format("A RailX port (800G transceiver + OCS port + fibre) costs %s at "
             "the default prices; the abstract's total implies %s per port "
             "under our reading (9 ports per chip) and %s if 1.8 TB/s were "
             "per direction (18).",
             usd(perPort).c_str(), usd(claim / (chips * 9)).c_str(),
             usd(claim / (chips * 18)).c_str()));
}

/// The claims of the abstract beside our figures on the decided fabric.
bool printClaims(const Findings &f, MarkdownDoc &doc) {
  const double claim = 1.3e9, within = 1.5;
  const double ratio = f.total / claim;
  struct Claim {
    std::string what, paper, ours;
    bool met;
  };
  const std::vector<Claim> claims = {
      {"diameter beyond 100K chips", "2-4 inter-node hops",
       format("%lld on the 200K fabric; every grid of [1] in 2-4: %s",
              static_cast<long long>(f.claimDiameter),
              f.allDiametersInRange ? "yes" : "no"),
       f.claimDiameter >= 2 && f.claimDiameter <= 4 && f.allDiametersInRange},
      {"cost per injection (all-reduce) bandwidth", "< 10 % of a fat-tree's",
       format("%.1f %%", 100 * f.injectionRatio), f.injectionRatio < 0.10},
      {"cost per bisection (all-to-all) bandwidth", "< 50 % of a fat-tree's",
       format("%.1f %%", 100 * f.bisectionRatio), f.bisectionRatio < 0.50},
      {"network cost, 200K chips at 1.8 TB/s per chip", "about $1.3B",
       format("%s (%.2fx)", usd(f.total).c_str(), ratio),
       ratio < within && ratio > 1 / within},
  };
  std::printf("\n[5] The abstract's claims on 112x112 x16, R=%lld (1.8 TB/s "
              "per chip both ways, default prices)\n",
              static_cast<long long>(kClaimRails));
  MarkdownTable &t = doc.table(
      format("The abstract's claims on 112 x 112 x 16, R = %lld (1.8 TB/s "
             "per chip counted both ways, default prices)",
             static_cast<long long>(kClaimRails)));
  t.header = {"claim", "paper", "ours", "met"};
  bool all = true;
  for (const Claim &c : claims) {
    std::printf("    %-46s %-24s %-52s %s\n", c.what.c_str(), c.paper.c_str(),
                c.ours.c_str(), c.met ? "yes" : "NO");
    t.row({c.what, c.paper, c.ours, c.met ? "yes" : "**no**"});
    all &= c.met;
  }
  t.notes.push_back(format("The total counts as met within %.1fx of the "
                           "abstract's figure (issue 17's target).",
                           within));
  return all;
}

void printScale(const Timed &t100, const Timed &t200, double baseline) {
  std::printf("\n[4] Time and peak memory to build and analyse (diameter, "
              "bisection, cost, fat-tree ratio)\n");
  std::printf("    budget (issue 3): a 100K-chip fabric in under 10 s and "
              "4 GB\n");
  std::printf("    %-28s %9s %9s %8s %11s %8s\n", "fabric", "chips", "seconds",
              "x budget", "peak RSS MB", "x budget");
  auto line = [](const char *name, const Timed &t) {
    std::printf("    %-28s %9s %9.3f %8.4f %11.1f %8.4f%s\n", name,
                grouped(static_cast<double>(t.chips)).c_str(), t.seconds,
                t.seconds / kTimeBudgetS, t.peakBytes / (1024.0 * 1024.0),
                t.peakBytes / kMemoryBudgetBytes, t.ok ? "" : "  (failed)");
  };
  line("80x80 x16, R=40", t100);
  line("112x112 x16, R=144 directed", t200);
  std::printf("    (peak RSS is the whole process; %.1f MB before the first "
              "build)\n",
              baseline / (1024.0 * 1024.0));
}

} // namespace

int main(int argc, char **argv) {
  MarkdownDoc doc("bench-railx", argc, argv);
  // Part 4 runs first, so that the peak memory it reports is the build's.
  const double baseline = peakRssBytes();
  Timed t100 = timeBuildAndAnalyse({80, 80, 16, 40, false});
  Timed t200 = timeBuildAndAnalyse({112, 112, 16, 144, true});

  std::printf("bench-railx: the RailX abstract (arXiv 2507.18889) next to "
              "our model\n");
  std::printf("prices: PriceTable defaults, sources and assumptions in "
              "docs/railx.md (Network cost)\n");
  Findings found;
  printDiameters(found);
  bool compared =
      printComparison({112, 112, 16, kClaimRails, false}, found, doc);
  printTotals(doc);
  printScale(t100, t200, baseline);
  // The claims table leads the markdown: put it first.
  MarkdownDoc claimsFirst("bench-railx", argc, argv);
  bool claimsMet = printClaims(found, claimsFirst);
  claimsFirst.append(doc);
  if (!claimsFirst.write())
    return 1;
  std::printf("\n%s\n", claimsMet ? "all four claims met"
                                  : "a claim is not met (see [5])");
  return t100.ok && t200.ok && compared ? 0 : 1;
}
