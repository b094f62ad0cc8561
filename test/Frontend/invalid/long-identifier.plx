// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A very long name is cut short in the message (the source line shows it
// whole).
model m {
  layers = 2;
  hidden = 64;
  heads = 2;
  ffn = 128;
  vocab = 100;
  aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa = 1;
// CHECK: {{.*}}long-identifier.plx:[[@LINE-1]]:3: error: unknown field 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' in model 'm'
// CHECK-NEXT: {{^}}  aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa = 1;
// CHECK-NEXT: {{^}}  ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// CHECK-NEXT: {{^}}1 error generated.
}

// A name of a million characters: the same, and quickly.
// RUN: %python -c "print('model ' + 'b' * 1000000 + ' { }')" > %t.plx
// RUN: not plxc %t.plx 2>&1 | FileCheck --strict-whitespace %s --check-prefix=HUGE
// HUGE: {{.*}}.plx:1:7: error: model 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb...' is missing required fields 'layers', 'hidden', 'heads', 'vocab' and 'ffn'
// HUGE: {{^}}1 error generated.
