// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Interleaved 1F1B (virtual_stages) splits a fixed pipeline's stages into
// model chunks: it needs pp >= 2 fixed, and pp x virtual_stages at most the
// layers (here 32).
model m {
  layers = 32;
  hidden = 4096;
  heads = 32;
  ffn = 11008;
  vocab = 32000;
}
dataset d {
  lengths = lognormal(mu = 8, sigma = 1);
}
fabric f {
  chip = H100;
  nodes = 4;
  chips_per_node = 8;
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
}
train dynamic_pp {
  model = m;
  data = d;
  fabric = f;
  batch = 64;
  strategy {
    pp = dynamic;
    zero = 1;
    virtual_stages = 2;
  }
}
train too_many {
  model = m;
  data = d;
  fabric = f;
  batch = 64;
  strategy {
    pp = 4;
    zero = 1;
    virtual_stages = 16;
  }
}
train none {
  model = m;
  data = d;
  fabric = f;
  batch = 64;
  strategy {
    zero = 1;
    virtual_stages = 0;
  }
}
// CHECK: {{.*}}virtual-stages.plx:29:22: error: virtual_stages = 2 interleaves model chunks over pipeline stages and needs a fixed pp of at least 2
// CHECK-NEXT: {{^}}    virtual_stages = 2;
// CHECK-NEXT: {{^}}                     ^
// CHECK-NEXT: {{.*}}virtual-stages.plx:27:10: note: pp is set here
// CHECK-NEXT: {{^}}    pp = dynamic;
// CHECK-NEXT: {{^}}         ^~~~~~~
// CHECK-NEXT: {{.*}}virtual-stages.plx:40:22: error: virtual_stages = 16 x pp 4 virtual stages, but the model has 32 layers
// CHECK-NEXT: {{^}}    virtual_stages = 16;
// CHECK-NEXT: {{^}}                     ^~
// CHECK-NEXT: {{.*}}virtual-stages.plx:38:10: note: pp is set here
// CHECK-NEXT: {{^}}    pp = 4;
// CHECK-NEXT: {{^}}         ^
// CHECK-NEXT: {{.*}}virtual-stages.plx:50:22: error: field 'virtual_stages' must be at least 1, got 0
// CHECK-NEXT: {{^}}    virtual_stages = 0;
// CHECK-NEXT: {{^}}                     ^
// CHECK-NEXT: {{^}}3 errors generated.
