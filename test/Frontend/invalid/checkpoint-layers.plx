// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// checkpoint_layers limits the strategy's checkpointing to the model's first
// layers (Megatron's block recompute): it needs a checkpoint mode to limit,
// a model that is not pipelined, and at most the model's 32 layers.
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
train no_mode {
  model = m;
  data = d;
  fabric = f;
  batch = 64;
  strategy {
    checkpoint_layers = 12;
  }
}
train adaptive_mode {
  model = m;
  data = d;
  fabric = f;
  batch = 64;
  strategy {
    pp = dynamic;
    checkpoint = adaptive;
    checkpoint_layers = 12;
  }
}
train pipelined {
  model = m;
  data = d;
  fabric = f;
  batch = 64;
  strategy {
    pp = 4;
    zero = 1;
    checkpoint = full;
    checkpoint_layers = 4;
  }
}
train too_many {
  model = m;
  data = d;
  fabric = f;
  batch = 64;
  strategy {
    checkpoint = selective;
    checkpoint_layers = 33;
  }
}
train zero_layers {
  model = m;
  data = d;
  fabric = f;
  batch = 64;
  strategy {
    checkpoint = full;
    checkpoint_layers = 0;
  }
}
// CHECK: {{.*}}checkpoint-layers.plx:27:25: error: checkpoint_layers = 12 limits checkpointing to the first layers, but checkpoint is none; say checkpoint = selective, attention_mlp or full
// CHECK-NEXT: {{^}}    checkpoint_layers = 12;
// CHECK-NEXT: {{^}}                        ^~
// CHECK-NEXT: {{.*}}checkpoint-layers.plx:38:25: error: checkpoint_layers = 12 limits checkpointing to the first layers, but checkpoint is adaptive, which chooses per chunk; say checkpoint = selective, attention_mlp or full
// CHECK-NEXT: {{^}}    checkpoint_layers = 12;
// CHECK-NEXT: {{^}}                        ^~
// CHECK-NEXT: {{.*}}checkpoint-layers.plx:37:18: note: checkpoint is set here
// CHECK-NEXT: {{^}}    checkpoint = adaptive;
// CHECK-NEXT: {{^}}                 ^~~~~~~~
// CHECK-NEXT: {{.*}}checkpoint-layers.plx:50:25: error: checkpoint_layers = 4 counts the first layers of an unpipelined model, but the strategy pipelines it
// CHECK-NEXT: {{^}}    checkpoint_layers = 4;
// CHECK-NEXT: {{^}}                        ^
// CHECK-NEXT: {{.*}}checkpoint-layers.plx:47:10: note: pp is set here
// CHECK-NEXT: {{^}}    pp = 4;
// CHECK-NEXT: {{^}}         ^
// CHECK-NEXT: {{.*}}checkpoint-layers.plx:60:25: error: checkpoint_layers = 33, but model 'm' has 32 layers
// CHECK-NEXT: {{^}}    checkpoint_layers = 33;
// CHECK-NEXT: {{^}}                        ^~
// CHECK-NEXT: {{.*}}checkpoint-layers.plx:5:7: note: model declared here
// CHECK-NEXT: {{^}}model m {
// CHECK-NEXT: {{^}}      ^
// CHECK-NEXT: {{.*}}checkpoint-layers.plx:70:25: error: field 'checkpoint_layers' must be at least 1, got 0
// CHECK-NEXT: {{^}}    checkpoint_layers = 0;
// CHECK-NEXT: {{^}}                        ^
// CHECK-NEXT: 5 errors generated.
