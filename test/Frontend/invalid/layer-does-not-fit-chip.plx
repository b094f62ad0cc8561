// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// One layer of this model, with Adam states, needs more than the 80 GiB of
// an H100 even with tp = 2 and ZeRO-3 over 2 data-parallel ranks.
model wide {
  layers = 4;
  hidden = 65536;
  heads = 64;
  ffn = 262144;
  vocab = 32000;
}
dataset d {
  lengths = lognormal(mu = 8, sigma = 1);
}
fabric f {
  chip = H100;
  nodes = 1;
  chips_per_node = 4;
  topology = fat_tree { radix = 4; tiers = 2; link = 400 Gb/s; };
}
train t {
  model = wide;
// CHECK: {{.*}}layer-does-not-fit-chip.plx:[[@LINE-1]]:11: error: the largest layer needs 274.88 GB per chip for weights, gradients and Adam states (tp = 2, zero = 3 over 2 data-parallel ranks), more than the 80.00 GB HBM of H100; raise tp or use more chips
// CHECK-NEXT: {{^}}  model = wide;
// CHECK-NEXT: {{^}}          ^~~~
// CHECK-NEXT: {{.*}}layer-does-not-fit-chip.plx:[[@LINE-21]]:7: note: model 'wide' is declared here
// CHECK-NEXT: {{^}}model wide {
// CHECK-NEXT: {{^}}      ^~~~
// CHECK-NEXT: {{.*}}layer-does-not-fit-chip.plx:[[@LINE-14]]:8: note: fabric 'f' is declared here
// CHECK-NEXT: {{^}}fabric f {
// CHECK-NEXT: {{^}}       ^
  data = d;
  fabric = f;
  batch = 64;
  strategy {
    tp = 2;
    zero = 3;
  }
}
// CHECK-NEXT: {{^}}1 error generated.
