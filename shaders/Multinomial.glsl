// Multinomial: output [batch, num_samples] (int32) draws a class from each row of uI[1] logits (or, with
// NORMALIZED, probabilities): a uniform r from a hash of (seed uI[3], output index) is walked down the
// row's cumulative weights (exp(x - max) for logits). uI[2] = num_samples.
uniform sampler2D X;

// PCG hash: a well-mixed 32-bit value per (seed, index)
uint pcg(uint v) {
  uint state = v * 747796405u + 2891336453u;
  uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
  return (word >> 22u) ^ word;
}

#define SCALAR
float compute(int i) {
  int n = uI[1];
  int base = (i / uI[2]) * n;
  float top = 0.0;
#ifndef NORMALIZED
  top = -INF;
  for (int j = 0; j < n; j++) top = max(top, at(X, base + j));
#endif
  float total = 0.0;
  for (int j = 0; j < n; j++) {
#ifdef NORMALIZED
    total += at(X, base + j);
#else
    total += exp(at(X, base + j) - top);
#endif
  }
  uint h = pcg(uint(i) ^ pcg(uint(uI[3])));
  float r = float(h >> 8u) / 16777216.0 * total;
  float cdf = 0.0;
  for (int j = 0; j < n - 1; j++) {
#ifdef NORMALIZED
    cdf += at(X, base + j);
#else
    cdf += exp(at(X, base + j) - top);
#endif
    if (r < cdf) return float(j);
  }
  return float(n - 1);
}
