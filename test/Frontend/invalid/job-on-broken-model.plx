// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A job on a model with its own error gets no second error of its own.
model m {
  layers = 32;
  hidden = 4096;
  heads = 30;
// CHECK: {{.*}}job-on-broken-model.plx:[[@LINE-1]]:11: error: heads (30) must divide hidden (4096) when head_dim is not given; give head_dim explicitly otherwise
// CHECK-NEXT: {{^}}  heads = 30;
// CHECK-NEXT: {{^}}          ^~
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
  strategy {
    sp = 4;
  }
}
// CHECK-NEXT: {{^}}1 error generated.
