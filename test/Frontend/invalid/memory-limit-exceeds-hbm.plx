// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A memory limit above the chip's HBM.
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
    memory_limit = 100 GB;
// CHECK: {{.*}}memory-limit-exceeds-hbm.plx:[[@LINE-1]]:20: error: memory_limit (100.00 GB) exceeds the HBM of H100 (80.00 GB)
// CHECK-NEXT: {{^}}    memory_limit = 100 GB;
// CHECK-NEXT: {{^}}                   ^~~~~~
// CHECK-NEXT: {{.*}}memory-limit-exceeds-hbm.plx:[[@LINE-16]]:8: note: fabric 'f' is declared here
// CHECK-NEXT: {{^}}fabric f {
// CHECK-NEXT: {{^}}       ^
  }
}
// CHECK-NEXT: {{^}}1 error generated.
