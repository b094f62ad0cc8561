// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// strategy is a block.
model m {
  layers = 32;
  hidden = 4096;
  heads = 32;
  ffn = 11008;
  vocab = 32000;
}
dataset d {
  lengths = lognormal(mu = 8, sigma = 1);
}
fabric f {
  chip = H100;
  nodes = 4;
  chips_per_node = 8;
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
}
train t {
  model = m;
  data = d;
  fabric = f;
  batch = 64;
  strategy = adaptive;
// CHECK: {{.*}}strategy-not-a-block.plx:[[@LINE-1]]:14: error: field 'strategy' expects a block such as strategy { sp = adaptive; }, got 'adaptive'
// CHECK-NEXT: {{^}}  strategy = adaptive;
// CHECK-NEXT: {{^}}             ^~~~~~~~
}
// CHECK-NEXT: {{^}}1 error generated.
