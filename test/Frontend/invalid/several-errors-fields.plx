// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Field errors in three declarations, all reported in one run.
model m {
  layers = 32;
  hidden = 4096;
  heads = 32;
  ffn = 11008;
  vocab = 32000;
  dtpye = bf16;
// CHECK: {{.*}}several-errors-fields.plx:[[@LINE-1]]:3: error: unknown field 'dtpye' in model 'm'; did you mean 'dtype'?
// CHECK-NEXT: {{^}}  dtpye = bf16;
// CHECK-NEXT: {{^}}  ^~~~~
}
dataset d {
  lengths = lognormal(mu = 8, sigma = 1);
  clamp = 4 GB;
// CHECK-NEXT: {{.*}}several-errors-fields.plx:[[@LINE-1]]:13: error: wrong unit: field 'clamp' expects a plain number (e.g. 32 or 384Ki), got a size in bytes '4 GB'
// CHECK-NEXT: {{^}}  clamp = 4 GB;
// CHECK-NEXT: {{^}}            ^~
}
fabric f {
  chip = H100;
  nodes = 0;
// CHECK-NEXT: {{.*}}several-errors-fields.plx:[[@LINE-1]]:11: error: field 'nodes' must be at least 1, got 0
// CHECK-NEXT: {{^}}  nodes = 0;
// CHECK-NEXT: {{^}}          ^
  chips_per_node = 8;
  topology = fat_tree { radix = 8; tiers = 2; link = 400 GB; };
// CHECK-NEXT: {{.*}}several-errors-fields.plx:[[@LINE-1]]:58: error: wrong unit: field 'link' expects a bandwidth (e.g. 900 GB/s or 400 Gb/s), got a size in bytes '400 GB'
// CHECK-NEXT: {{^}}  topology = fat_tree { radix = 8; tiers = 2; link = 400 GB; };
// CHECK-NEXT: {{^}}                                                         ^~
}
// CHECK-NEXT: {{^}}4 errors generated.
