// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Without head_dim, heads must divide hidden.
model m {
  layers = 32;
  hidden = 4096;
  heads = 30;
// CHECK: {{.*}}heads-not-dividing-hidden.plx:[[@LINE-1]]:11: error: heads (30) must divide hidden (4096) when head_dim is not given; give head_dim explicitly otherwise
// CHECK-NEXT: {{^}}  heads = 30;
// CHECK-NEXT: {{^}}          ^~
  ffn = 11008;
  vocab = 32000;
}
// CHECK-NEXT: {{^}}1 error generated.
