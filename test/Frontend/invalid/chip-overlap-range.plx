// RUN: not plxc %s 2>&1 | FileCheck %s --strict-whitespace
// The overlap figures of a chip are fractions in their ranges
// (docs/cost-model.md, "Overlap").
fabric f {
  chip = H100 { overlap_slowdown = 5; overlap_comm_efficiency = 0; };
// CHECK: {{.*}}chip-overlap-range.plx:[[@LINE-1]]:36: error: field 'overlap_slowdown' must be at most 4, got 5
// CHECK: {{.*}}chip-overlap-range.plx:[[@LINE-2]]:65: error: field 'overlap_comm_efficiency' must be at least 0.01, got 0
  nodes = 1;
  chips_per_node = 8;
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
}

// A chip's overrides reach the IR; the defaults are not printed.
// RUN: printf 'fabric f {\n  chip = H100 { overlap_slowdown = 0.25; };\n  nodes = 1; chips_per_node = 8;\n  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };\n}\n' > %t.plx
// RUN: plxc %t.plx --emit=spec | FileCheck %s --check-prefix=IR
// IR: chip <name = "H100 (modified: overlap_slowdown)", {{.*}}, nvlink_bandwidth = 9.0e+11, overlap_slowdown = 0.25, sm_count = 132>
// RUN: plxc %t.plx --emit=spec | plx-opt | FileCheck %s --check-prefix=IR
