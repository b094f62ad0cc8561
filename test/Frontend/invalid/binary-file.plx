// An executable passed by mistake: its first byte (0x7F, DEL) is valid
// UTF-8, so this is a syntax error at 1:1, not a crash or a wall of errors.
// RUN: printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000\003\000>\000' > %t.plx
// RUN: not plxc %t.plx 2>&1 | FileCheck --strict-whitespace %s
// CHECK: {{.*}}.plx:1:1: error: unexpected character U+007F
// CHECK: {{^}}1 error generated.
