// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// '_' separates single digits only; 1__000 must not read as 1 with the
// unit '__000'.
model m {
  vocab = 1__000;
// CHECK: {{.*}}number-with-double-underscore.plx:[[@LINE-1]]:11: error: malformed number '1__000' (numbers are written as 32, 1_000, 1.5 or 2e9)
// CHECK-NEXT: {{^}}  vocab = 1__000;
// CHECK-NEXT: {{^}}          ^~~~~~
}
// CHECK-NEXT: {{^}}1 error generated.
