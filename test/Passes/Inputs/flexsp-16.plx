// FlexSP on 2 nodes x 8 A100 (16 GPUs): mostly 2K-token sequences and a few
// of 96K, more than one node's memory holds, under a 6 GB budget per chip.
model gpt1b {
  layers = 8; hidden = 2048; heads = 16; ffn = 8Ki; mlp = gelu; vocab = 50257;
}
dataset mixed {
  lengths = histogram(bounds = [2047, 2048, 98303, 98304],
                      weights = [0, 95, 0, 5]);
  clamp = 96Ki;
}
fabric a100_16 {
  chip = A100_40GB;
  nodes = 2;
  chips_per_node = 8;
  topology = fat_tree { radix = 8; tiers = 2; link = 50 Gb/s; };
}
train flexsp {
  model = gpt1b; data = mixed; fabric = a100_16;
  batch = 64; seed = 5;
  strategy { sp = adaptive; checkpoint = selective; zero = 3; memory_limit = 6 GB; }
}
