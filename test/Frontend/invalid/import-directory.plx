// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// An import of a directory.
import "Inputs";
// CHECK: {{.*}}import-directory.plx:[[@LINE-1]]:8: error: cannot read '{{.*}}Inputs': it is a directory
// CHECK-NEXT: {{^}}import "Inputs";
// CHECK-NEXT: {{^}}       ^~~~~~~~
// CHECK-NEXT: {{^}}1 error generated.
