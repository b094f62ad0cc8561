// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Far beyond int64: the message names the bound, not an overflow.
model m {
  layers = 99999999999999999999999999;
// CHECK: {{.*}}number-too-large.plx:[[@LINE-1]]:12: error: field 'layers' must be at most 100000, got 99999999999999999999999999
// CHECK-NEXT: {{^}}  layers = 99999999999999999999999999;
// CHECK-NEXT: {{^}}           ^~~~~~~~~~~~~~~~~~~~~~~~~~
  hidden = 4096;
  heads = 32;
  ffn = 11008;
  vocab = 32000;
}
// CHECK-NEXT: {{^}}1 error generated.
