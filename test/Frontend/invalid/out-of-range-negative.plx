// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A negative width; the whole '-4' is underlined.
model m {
  layers = 32;
  hidden = 4096;
  heads = 32;
  ffn = -4;
// CHECK: {{.*}}out-of-range-negative.plx:[[@LINE-1]]:9: error: field 'ffn' must be at least 0, got -4
// CHECK-NEXT: {{^}}  ffn = -4;
// CHECK-NEXT: {{^}}        ^~
  vocab = 32000;
}
// CHECK-NEXT: {{^}}1 error generated.
