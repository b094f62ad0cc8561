// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A job without its model, data, fabric and batch: one error.
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
// CHECK: {{.*}}job-missing-fields.plx:[[@LINE-1]]:7: error: train 't' is missing required fields 'model', 'data', 'fabric' and 'batch'
// CHECK-NEXT: {{^}}train t {
// CHECK-NEXT: {{^}}      ^
  seed = 1;
}
// CHECK-NEXT: {{^}}1 error generated.
