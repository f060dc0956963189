// LRN over the channels of NHWC x: x * (bias + alpha * sum of x^2 over [c - r, c + r]) ^ -beta.
// uI[1] = channels, uI[2] = depth_radius; uF = (bias, alpha, beta).
uniform sampler2D X;

#define SCALAR
float compute(int i) {
  int channels = uI[1];
  int c = i % channels;
  int base = i - c;
  int lo = max(0, c - uI[2]);
  int hi = min(channels - 1, c + uI[2]);
  float total = 0.0;
  for (int k = lo; k <= hi; k++) {
    float v = at(X, base + k);
    total += v * v;
  }
  return at(X, i) * pow(uF[0] + uF[1] * total, -uF[2]);
}
