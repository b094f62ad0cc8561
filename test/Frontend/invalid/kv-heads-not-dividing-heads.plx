// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Grouped-query attention: kv_heads must divide heads.
model m {
  layers = 32;
  hidden = 4096;
  heads = 32;
  kv_heads = 6;
// CHECK: {{.*}}kv-heads-not-dividing-heads.plx:[[@LINE-1]]:14: error: kv_heads (6) must divide heads (32)
// CHECK-NEXT: {{^}}  kv_heads = 6;
// CHECK-NEXT: {{^}}             ^
  ffn = 11008;
  vocab = 32000;
}
// CHECK-NEXT: {{^}}1 error generated.
