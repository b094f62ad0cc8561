// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A dataset where a model is expected; the note shows what it is.
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
  model = d;
// CHECK: {{.*}}reference-wrong-kind.plx:[[@LINE-1]]:11: error: 'd' is a dataset, but field 'model' needs a model
// CHECK-NEXT: {{^}}  model = d;
// CHECK-NEXT: {{^}}          ^
// CHECK-NEXT: {{.*}}reference-wrong-kind.plx:[[@LINE-14]]:9: note: 'd' is declared here
// CHECK-NEXT: {{^}}dataset d {
// CHECK-NEXT: {{^}}        ^
  data = d;
  fabric = f;
  batch = 64;
}
// CHECK-NEXT: {{^}}1 error generated.
