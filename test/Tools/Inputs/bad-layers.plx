model bad { layers = 0; hidden = 128; heads = 2; ffn = 512; vocab = 256; }
