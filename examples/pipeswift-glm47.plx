// PipeSwift's main setup: a GLM-4.7-like MoE (GLM-4.5 architecture figures)
// served with FP8 weights on 8 nodes x 8 H800-80GB, as 4 instances of
// PP2 x EP8 with DP-attention and MTP, replaying SWE-Bench-like agent tasks.

model glm47 {
  layers = 92;
  dense_layers = 3;
  hidden = 5120;
  heads = 96;
  kv_heads = 8;
  head_dim = 128;
  ffn = 12288;
  experts = 160;
  top_k = 8;
  shared_experts = 1;
  moe_ffn = 1536;
  mtp_layers = 1;
  vocab = 151552;
  dtype = fp8;
}

workload swe {
  synthetic = swe_bench {
    tasks = 512;
  };
  concurrency = 128;
}

fabric h800_64 {
  chip = H800;
  nodes = 8;
  chips_per_node = 8;
  topology = rail_optimized {
    rails = 8;
    radix = 64;
    link = 400 Gb/s;
  };
}

serve pipeswift {
  model = glm47;
  workload = swe;
  fabric = h800_64;
  seed = 3;
  strategy {
    pp = 2;
    ep = 8;
    dp_attention = true;
    mtp = 3;
    wave_interval = auto;
    memory_utilization = 0.8;
  }
}
