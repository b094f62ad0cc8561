// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// sp * tp must divide heads.
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
  strategy {
    sp = 8;
// CHECK: {{.*}}sp-tp-not-dividing-heads.plx:[[@LINE-1]]:10: error: sp * tp (8 * 8 = 64) must divide heads (32): each tensor-parallel rank holds heads / tp heads, which Ulysses splits sp ways
// CHECK-NEXT: {{^}}    sp = 8;
// CHECK-NEXT: {{^}}         ^
// CHECK-NEXT: {{.*}}sp-tp-not-dividing-heads.plx:[[@LINE-26]]:7: note: model 'm' is declared here
// CHECK-NEXT: {{^}}model m {
// CHECK-NEXT: {{^}}      ^
    tp = 8;
  }
}
// CHECK-NEXT: {{^}}1 error generated.
