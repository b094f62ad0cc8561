// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// The degrees' product must divide the 32 chips; the note is the fabric's.
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
    sp = 4;
// CHECK: {{.*}}degrees-not-dividing-chips.plx:[[@LINE-1]]:10: error: sp * pp * tp * cp (4 * 3 * 1 * 1 = 12) must divide the chip count (32)
// CHECK-NEXT: {{^}}    sp = 4;
// CHECK-NEXT: {{^}}         ^
// CHECK-NEXT: {{.*}}degrees-not-dividing-chips.plx:[[@LINE-16]]:8: note: fabric 'f' is declared here
// CHECK-NEXT: {{^}}fabric f {
// CHECK-NEXT: {{^}}       ^
    pp = 3;
  }
}
// CHECK-NEXT: {{^}}1 error generated.
