// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// An import that does not exist.
import "Inputs/no-such-file.plx";
// CHECK: {{.*}}unreadable-import.plx:[[@LINE-1]]:8: error: cannot read '{{.*}}Inputs/no-such-file.plx': No such file or directory
// CHECK-NEXT: {{^}}import "Inputs/no-such-file.plx";
// CHECK-NEXT: {{^}}       ^~~~~~~~~~~~~~~~~~~~~~~~~
// CHECK-NEXT: {{^}}1 error generated.
