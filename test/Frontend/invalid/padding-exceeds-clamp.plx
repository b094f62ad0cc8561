// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Padding to 8K cannot fit under a 4K clamp.
dataset d {
  lengths = lognormal(mu = 8, sigma = 1);
  clamp = 4Ki;
  padding = 8Ki;
// CHECK: {{.*}}padding-exceeds-clamp.plx:[[@LINE-1]]:13: error: padding (8192) exceeds clamp (4096)
// CHECK-NEXT: {{^}}  padding = 8Ki;
// CHECK-NEXT: {{^}}            ^~~
}
// CHECK-NEXT: {{^}}1 error generated.
