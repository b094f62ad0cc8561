// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Multi-token prediction needs MTP layers in the model.
model moe {
  layers = 8;
  hidden = 2048;
  heads = 16;
  vocab = 32000;
  experts = 12;
  top_k = 2;
  moe_ffn = 1024;
}
workload w {
  synthetic = swe_bench;
}
fabric f {
  chip = H100;
  nodes = 1;
  chips_per_node = 8;
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
}
serve s {
  model = moe;
  workload = w;
  fabric = f;
  strategy {
    ep = 4;
    mtp = 1;
// CHECK: {{.*}}mtp-without-mtp-layers.plx:[[@LINE-1]]:11: error: mtp = 1 needs a model with mtp_layers > 0
// CHECK-NEXT: {{^}}    mtp = 1;
// CHECK-NEXT: {{^}}          ^
// CHECK-NEXT: {{.*}}mtp-without-mtp-layers.plx:[[@LINE-28]]:7: note: model 'moe' is declared here
// CHECK-NEXT: {{^}}model moe {
// CHECK-NEXT: {{^}}      ^~~
  }
}
// CHECK-NEXT: {{^}}1 error generated.
