// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Shape and data rules of different declarations, in source order.
model m {
  layers = 4;
  hidden = 4096;
  heads = 30;
// CHECK: {{.*}}several-errors-shapes.plx:[[@LINE-1]]:11: error: heads (30) must divide hidden (4096) when head_dim is not given; give head_dim explicitly otherwise
// CHECK-NEXT: {{^}}  heads = 30;
// CHECK-NEXT: {{^}}          ^~
  kv_heads = 4;
// CHECK-NEXT: {{.*}}several-errors-shapes.plx:[[@LINE-1]]:14: error: kv_heads (4) must divide heads (30)
// CHECK-NEXT: {{^}}  kv_heads = 4;
// CHECK-NEXT: {{^}}             ^
  ffn = 11008;
  vocab = 32000;
}
dataset d {
  lengths = histogram(bounds = [8Ki, 2Ki], weights = [1, 1]);
// CHECK-NEXT: {{.*}}several-errors-shapes.plx:[[@LINE-1]]:38: error: histogram bounds must increase: 2048 follows 8192
// CHECK-NEXT: {{^}}  lengths = histogram(bounds = [8Ki, 2Ki], weights = [1, 1]);
// CHECK-NEXT: {{^}}                                     ^~~
}
fabric f {
  chip = H100;
  nodes = 4;
  chips_per_node = 8;
  chips = 16;
// CHECK-NEXT: {{.*}}several-errors-shapes.plx:[[@LINE-1]]:11: error: chip count does not match: chips = 16 but nodes x chips_per_node = 4 x 8 = 32
// CHECK-NEXT: {{^}}  chips = 16;
// CHECK-NEXT: {{^}}          ^~
// CHECK-NEXT: {{.*}}several-errors-shapes.plx:[[@LINE-6]]:3: note: nodes is set here
// CHECK-NEXT: {{^}}  nodes = 4;
// CHECK-NEXT: {{^}}  ^~~~~
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
}
// CHECK-NEXT: {{^}}4 errors generated.
