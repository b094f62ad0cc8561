// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Numbers are decimal; 0x10 must not read as 0 with the unit 'x10'.
model m {
  heads = 0x10;
// CHECK: {{.*}}hex-number.plx:[[@LINE-1]]:11: error: malformed number '0x10' (numbers are written as 32, 1_000, 1.5 or 2e9)
// CHECK-NEXT: {{^}}  heads = 0x10;
// CHECK-NEXT: {{^}}          ^~~~
}
// CHECK-NEXT: {{^}}1 error generated.
