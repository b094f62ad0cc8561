// A NUL byte is valid UTF-8 but no part of the language; it is named by
// its code point, not printed.
// RUN: printf 'model m {\n  layers = 32;\000\n}\n' > %t.plx
// RUN: not plxc %t.plx 2>&1 | FileCheck --strict-whitespace %s
// CHECK: {{.*}}.plx:2:15: error: unexpected character U+0000
// CHECK-NEXT: {{^}}  layers = 32;{{.*}}
// CHECK-NEXT: {{^}}              ^
// CHECK-NEXT: {{^}}1 error generated.
