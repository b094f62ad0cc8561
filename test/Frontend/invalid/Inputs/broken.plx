// Imported by import-with-syntax-error.plx; the error is reported here.
model broken {
  layers = 32
  hidden = 4096;
}
