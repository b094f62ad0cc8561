// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Two decimal points.
model m {
  layers = 3.2.1;
// CHECK: {{.*}}malformed-number.plx:[[@LINE-1]]:12: error: malformed number '3.2.1' (numbers are written as 32, 1_000, 1.5 or 2e9)
// CHECK-NEXT: {{^}}  layers = 3.2.1;
// CHECK-NEXT: {{^}}           ^~~~~
}
// CHECK-NEXT: {{^}}1 error generated.
