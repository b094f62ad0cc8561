// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A count takes no unit of measure.
model m {
  layers = 32 GB;
// CHECK: {{.*}}unit-on-a-count.plx:[[@LINE-1]]:15: error: wrong unit: field 'layers' expects a plain number (e.g. 32 or 384Ki), got a size in bytes '32 GB'
// CHECK-NEXT: {{^}}  layers = 32 GB;
// CHECK-NEXT: {{^}}              ^~
  hidden = 4096;
  heads = 32;
  ffn = 11008;
  vocab = 32000;
}
// CHECK-NEXT: {{^}}1 error generated.
