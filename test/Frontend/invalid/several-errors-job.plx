// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A job with several mistakes: each is reported once.
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
train t {
  model = d;
// CHECK: {{.*}}several-errors-job.plx:[[@LINE-1]]:11: error: 'd' is a dataset, but field 'model' needs a model
// CHECK-NEXT: {{^}}  model = d;
// CHECK-NEXT: {{^}}          ^
// CHECK-NEXT: {{.*}}several-errors-job.plx:[[@LINE-8]]:9: note: 'd' is declared here
// CHECK-NEXT: {{^}}dataset d {
// CHECK-NEXT: {{^}}        ^
  data = dd;
// CHECK-NEXT: {{.*}}several-errors-job.plx:[[@LINE-1]]:10: error: unknown dataset 'dd'; did you mean 'd'?
// CHECK-NEXT: {{^}}  data = dd;
// CHECK-NEXT: {{^}}         ^~
  fabric = ff;
// CHECK-NEXT: {{.*}}several-errors-job.plx:[[@LINE-1]]:12: error: unknown fabric 'ff'
// CHECK-NEXT: {{^}}  fabric = ff;
// CHECK-NEXT: {{^}}           ^~
  batch = 0;
// CHECK-NEXT: {{.*}}several-errors-job.plx:[[@LINE-1]]:11: error: field 'batch' must be at least 1, got 0
// CHECK-NEXT: {{^}}  batch = 0;
// CHECK-NEXT: {{^}}          ^
  strategy {
    sp = adaptiv;
// CHECK-NEXT: {{.*}}several-errors-job.plx:[[@LINE-1]]:10: error: field 'sp' expects a degree or one of 'adaptive', 'best_homogeneous', got 'adaptiv'; did you mean 'adaptive'?
// CHECK-NEXT: {{^}}    sp = adaptiv;
// CHECK-NEXT: {{^}}         ^~~~~~~
    zero = 5;
// CHECK-NEXT: {{.*}}several-errors-job.plx:[[@LINE-1]]:12: error: field 'zero' must be at most 3, got 5
// CHECK-NEXT: {{^}}    zero = 5;
// CHECK-NEXT: {{^}}           ^
  }
}
// CHECK-NEXT: {{^}}6 errors generated.
