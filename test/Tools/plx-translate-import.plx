// RUN: plx-translate --import-plx %s | FileCheck %s
// RUN: plx-translate --import-plx %s | plx-opt | FileCheck %s
// RUN: plx-translate --import-plx %s --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

model tiny { layers = 2; hidden = 128; heads = 2; ffn = 512; vocab = 256; }
// CHECK: plx.model @tiny <layers = 2, hidden = 128, heads = 2, kv_heads = 2, head_dim = 64, ffn = 512, vocab = 256>
// LOC: plx.model @tiny {{.*}} loc(#[[L:loc[0-9]*]])
// LOC: #[[L]] = loc("{{.*}}plx-translate-import.plx":5:7)

// RUN: not plx-translate --import-plx %S/Inputs/bad-layers.plx 2>&1 | FileCheck %s --check-prefix=ERR
// ERR: {{.*}}bad-layers.plx:1:22: error: field 'layers' must be at least 1, got 0
