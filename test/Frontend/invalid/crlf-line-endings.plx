// CRLF line endings: same lines and columns as with LF, and no '\r' in the
// echoed source line.
// RUN: printf 'model m {\r\n  layer = 32;\r\n  hidden = 4096;\r\n  heads = 32;\r\n  ffn = 11008;\r\n  vocab = 32000;\r\n}\r\n' > %t.plx
// RUN: not plxc %t.plx 2>&1 | FileCheck --strict-whitespace %s
// CHECK: {{.*}}.plx:2:3: error: unknown field 'layer' in model 'm'; did you mean 'layers'?
// CHECK-NEXT: {{^}}  layer = 32;{{$}}
// CHECK-NEXT: {{^}}  ^~~~~{{$}}
// CHECK-NEXT: {{^}}1 error generated.
