// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// The shortest cycle.
import "import-self.plx";
// CHECK: {{.*}}import-self.plx:[[@LINE-1]]:8: error: import cycle: {{.*}}import-self.plx -> {{.*}}import-self.plx
// CHECK-NEXT: {{^}}import "import-self.plx";
// CHECK-NEXT: {{^}}       ^~~~~~~~~~~~~~~~~
// CHECK-NEXT: {{^}}1 error generated.
