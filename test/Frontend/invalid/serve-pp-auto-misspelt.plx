// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// pp and ep of a serve job are counts or `auto`.
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
    pp = atuo;
// CHECK: {{.*}}serve-pp-auto-misspelt.plx:[[@LINE-1]]:10: error: field 'pp' expects a number of pipeline stages or one of 'auto', got 'atuo'; did you mean 'auto'?
// CHECK-NEXT: {{^}}    pp = atuo;
// CHECK-NEXT: {{^}}         ^
  }
}
// CHECK-NEXT: {{^}}1 error generated.
