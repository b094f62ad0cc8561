// Interleaved 1F1B from the strategy (virtual_stages): the plan is named
// pp<p>-tp<t>-v<v>-1f1b, the lowered programs post their stage-to-stage
// sends on the communication stream (rt.send ... async), and the report
// says how the step divides. 8 layers over pp 4 x 2 model chunks: virtual
// stages of one layer; batch 8 at micro_batch 1 is 8 micro-batches, a
// multiple of the 4 stages as the schedule needs.
// RUN: plxc %s | FileCheck %s --check-prefix=TEXT
// TEXT: plan     pp4-tp1-v2-1f1b: pp 4, ZeRO-1, selective checkpointing, 8 micro-batches (step 0)
// TEXT: step     predicted
// A plain 1F1B baseline is ruled out by the strategy's model chunks too.
// TEXT: note     pp2-tp1-1f1b is {{.*}}plain 1F1B (the strategy fixes virtual_stages = 2)
// RUN: rm -rf %t && plxc %s -o %t > /dev/null && FileCheck %s --check-prefix=RT < %t/rt.mlir
// RT: rt.program
// RT: rt.send to 1 bytes {{[0-9]+}} tag {{[0-9]+}} async carries fwd
// RT: rt.recv from 3 bytes {{[0-9]+}} tag {{[0-9]+}} carries fwd
// The plan IR keeps the model chunks (`vpp 2`) and plx-opt reads it back.
// RUN: plxc %s --emit=plan | FileCheck %s --check-prefix=PLAN
// PLAN: plan.sp_group degree 4 ranks [0, 3] {{.*}} pp 4 vpp 2
model m {
  layers = 8;
  hidden = 256;
  heads = 4;
  ffn = 1024;
  vocab = 1024;
}
dataset d {
  lengths = histogram(bounds = [511, 512], weights = [0, 1]);
  clamp = 512;
}
fabric f {
  chip = H100;
  nodes = 1;
  chips_per_node = 4;
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
}
train t {
  model = m;
  data = d;
  fabric = f;
  batch = 8;
  strategy {
    pp = 4;
    zero = 1;
    micro_batch = 1;
    checkpoint = selective;
    virtual_stages = 2;
  }
}
