// Declarations without a job, to be imported (empty-and-no-jobs.test,
// import-diamond.plx).
model shared_gpt {
  layers = 2;
  hidden = 64;
  heads = 2;
  ffn = 128;
  vocab = 100;
}

dataset shared_docs {
  lengths = lognormal(mu = 5, sigma = 1);
}
