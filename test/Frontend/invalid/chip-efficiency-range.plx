// RUN: not plxc %s 2>&1 | FileCheck %s --strict-whitespace
// The kernel rates of a chip are fractions of its peaks in (0, 1]
// (docs/cost-model.md, "Compute time by kind of kernel").
fabric f {
  chip = A100_80GB { gemm_efficiency = 1.5; attention_efficiency = 0; memory_efficiency = -1; };
// CHECK: {{.*}}chip-efficiency-range.plx:[[@LINE-1]]:40: error: field 'gemm_efficiency' must be at most 1, got 1.5
// CHECK: {{.*}}chip-efficiency-range.plx:[[@LINE-2]]:68: error: field 'attention_efficiency' must be at least 0.01, got 0
// CHECK: {{.*}}chip-efficiency-range.plx:[[@LINE-3]]:91: error: field 'memory_efficiency' must be at least 0.01, got -1
  nodes = 1;
  chips_per_node = 8;
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
}

// A catalog chip's rates reach the IR when they are not the defaults (the
// A100's GEMM efficiency); an override is printed and survives a round
// trip through plx-opt.
// RUN: printf 'fabric f {\n  chip = A100_80GB;\n  nodes = 1; chips_per_node = 8;\n  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };\n}\n' > %t.a100.plx
// RUN: plxc %t.a100.plx --emit=spec | FileCheck %s --check-prefix=A100
// A100: chip <name = "A100_80GB", {{.*}}, nvlink_bandwidth = 6.0e+11, gemm_efficiency = 0.65, sm_count = 108>
// RUN: printf 'fabric f {\n  chip = H100 { attention_efficiency = 0.7; memory_efficiency = 0.9; };\n  nodes = 1; chips_per_node = 8;\n  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };\n}\n' > %t.plx
// RUN: plxc %t.plx --emit=spec | FileCheck %s --check-prefix=IR
// IR: chip <name = "H100 (modified: attention_efficiency, memory_efficiency)", {{.*}}, nvlink_bandwidth = 9.0e+11, attention_efficiency = 0.7, memory_efficiency = 0.9, sm_count = 132>
// RUN: plxc %t.plx --emit=spec | plx-opt | FileCheck %s --check-prefix=IR
// The IR's verifier holds the same ranges for hand-written chips.
// RUN: plxc %t.plx --emit=spec | sed -e 's/memory_efficiency = 0.9/memory_efficiency = 1.5/' | not plx-opt 2>&1 | FileCheck %s --check-prefix=VERIFY
// VERIFY: chip memory_efficiency must be in (0, 1], got 1.5

// The SM count over which GEMMs are timed by tiles and waves
// (docs/cost-model.md, "GEMMs by shape and dtype") is a chip field too: an
// H100 PCIe has 114 SMs; 0 times GEMMs without quantization.
// RUN: printf 'fabric f {\n  chip = H100 { sm_count = 114; };\n  nodes = 1; chips_per_node = 8;\n  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };\n}\n' > %t.sm.plx
// RUN: plxc %t.sm.plx --emit=spec | FileCheck %s --check-prefix=SM
// SM: chip <name = "H100 (modified: sm_count)", {{.*}}, nvlink_bandwidth = 9.0e+11, sm_count = 114>
// RUN: plxc %t.sm.plx --emit=spec | sed -e 's/sm_count = 114/sm_count = -3/' | not plx-opt 2>&1 | FileCheck %s --check-prefix=SMVERIFY
// SMVERIFY: chip sm_count must be in [0, 1024], got -3
// RUN: printf 'fabric f {\n  chip = H100 { sm_count = -1; };\n  nodes = 1; chips_per_node = 8;\n  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };\n}\n' > %t.smbad.plx
// RUN: not plxc %t.smbad.plx 2>&1 | FileCheck %s --check-prefix=SMBAD
// SMBAD: error: field 'sm_count' must be at least 0, got -1
// More SMs than any GPU has is a typo, not a chip (B200 has 148).
// RUN: printf 'fabric f {\n  chip = B200 { sm_count = 100000; };\n  nodes = 1; chips_per_node = 8;\n  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };\n}\n' > %t.smbig.plx
// RUN: not plxc %t.smbig.plx 2>&1 | FileCheck %s --check-prefix=SMBIG
// SMBIG: error: field 'sm_count' must be at most 1024, got 100000
