// LRNGrad over the channels of NHWC x (y = LRN(x), dy its gradient): element k collects, from every
// channel i within depth_radius of it, dy[i] * (d y[i] / d x[k]), where
// norm_i = bias + alpha * sum of x^2 over [i - r, i + r]. uI[1] = channels, uI[2] = depth_radius;
// uF = (bias, alpha, beta).
uniform sampler2D X;
uniform sampler2D Y;
uniform sampler2D DY;

#define SCALAR
float compute(int k) {
  int channels = uI[1], r = uI[2];
  int ck = k % channels;
  int base = k - ck;
  float xk = at(X, k);
  float acc = 0.0;
  for (int ci = max(0, ck - r); ci <= min(channels - 1, ck + r); ci++) {
    float total = 0.0;
    for (int j = max(0, ci - r); j <= min(channels - 1, ci + r); j++) {
      float v = at(X, base + j);
      total += v * v;
    }
    float norm = uF[1] * total + uF[0];
    float d = -2.0 * uF[1] * uF[2] * xk * at(Y, base + ci) / norm;
    if (ci == ck) d += pow(norm, -uF[2]);
    acc += d * at(DY, base + ci);
  }
  return acc;
}
