// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A count below its minimum.
model m {
  layers = 0;
// CHECK: {{.*}}out-of-range-zero.plx:[[@LINE-1]]:12: error: field 'layers' must be at least 1, got 0
// CHECK-NEXT: {{^}}  layers = 0;
// CHECK-NEXT: {{^}}           ^
  hidden = 4096;
  heads = 32;
  ffn = 11008;
  vocab = 32000;
}
// CHECK-NEXT: {{^}}1 error generated.
