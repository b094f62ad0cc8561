// Bytes that are not UTF-8 are reported at their line and column, naming
// the byte, before any attempt to parse.
// RUN: printf 'model m {\n  layers = 3\377;\n}\n' > %t.plx
// RUN: not plxc %t.plx 2>&1 | FileCheck --strict-whitespace %s
// CHECK: {{.*}}.plx:2:13: error: invalid UTF-8 byte 0xFF; a .plx file must be UTF-8 text
// CHECK-NEXT: {{^}}  layers = 3{{.*}};
// CHECK-NEXT: {{^}}            ^
// CHECK-NEXT: {{^}}1 error generated.

// A sequence cut short by the end of the file.
// RUN: printf 'model m { } // \342\202' > %t.cut.plx
// RUN: not plxc %t.cut.plx 2>&1 | FileCheck --strict-whitespace %s --check-prefix=CUT
// CUT: {{.*}}.cut.plx:1:16: error: invalid UTF-8 byte 0xE2; a .plx file must be UTF-8 text
// CUT: {{^}}1 error generated.

// An overlong encoding of '/' (0xC0 0xAF) is not UTF-8 either.
// RUN: printf 'model m { } /\300\257' > %t.overlong.plx
// RUN: not plxc %t.overlong.plx 2>&1 | FileCheck --strict-whitespace %s --check-prefix=OVERLONG
// OVERLONG: {{.*}}.overlong.plx:1:14: error: invalid UTF-8 byte 0xC0; a .plx file must be UTF-8 text
