// CHECK: {{.*}}Inputs/cyclic-import-c.plx:2:8: error: import cycle: {{.*}}cyclic-import-a.plx -> {{.*}}Inputs/cyclic-import-b.plx -> {{.*}}Inputs/cyclic-import-c.plx -> {{.*}}cyclic-import-a.plx
// CHECK-NEXT: {{^}}import "../cyclic-import-a.plx";
// CHECK-NEXT: {{^}}       ^~~~~~~~~~~~~~~~~~~~~~~~
// CHECK-NEXT: {{.*}}cyclic-import-a.plx:[[@LINE+8]]:8: note: imported from here
// CHECK-NEXT: {{^}}import "Inputs/cyclic-import-b.plx";
// CHECK-NEXT: {{^}}       ^~~~~~~~~~~~~~~~~~~~~~~~~~~~
// CHECK-NEXT: {{.*}}Inputs/cyclic-import-b.plx:2:8: note: imported from here
// CHECK-NEXT: {{^}}import "cyclic-import-c.plx";
// CHECK-NEXT: {{^}}       ^~~~~~~~~~~~~~~~~~~~~
// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// a -> b -> c -> a: the error names the chain and each import on it.
import "Inputs/cyclic-import-b.plx";
// CHECK-NEXT: {{^}}1 error generated.
