// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A job naming a model that does not exist, with a suggestion.
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
  model = mm;
// CHECK: {{.*}}unknown-reference.plx:[[@LINE-1]]:11: error: unknown model 'mm'; did you mean 'm'?
// CHECK-NEXT: {{^}}  model = mm;
// CHECK-NEXT: {{^}}          ^~
  data = d;
  fabric = f;
  batch = 64;
}
// CHECK-NEXT: {{^}}1 error generated.
