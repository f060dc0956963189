// MaxPool (MAX) and AvgPool (AVG), NHWC: each output reduces its window of x over in-bounds taps only
// (AvgPool divides by their count, as TF.js). uI[1..13]: h, w, c, oh, ow, fh, fw, sh, sw, dh, dw, pt, pl.
// VEC (c % 4 == 0): 4 channels of one pixel per fragment.
uniform sampler2D X;
//#include sampled

#ifdef VEC
vec4 compute4(int i) {
  int h = uI[1], w = uI[2], c = uI[3], oh = uI[4], ow = uI[5];
  int ch = i % c, p = i / c;
  int ox = p % ow;
  p /= ow;
  int oy = p % oh, b = p / oh;
#ifdef MAX
  vec4 acc = vec4(-INF);
#else
  vec4 acc = vec4(0.0);
#endif
  int count = 0;
  Tex iX = texInfo(X);
  for (int r = 0; r < uI[6]; r++) {
    int iy = oy * uI[8] - uI[12] + r * uI[10];
    if (iy < 0 || iy >= h) continue;
    for (int s = 0; s < uI[7]; s++) {
      int ix = ox * uI[9] - uI[13] + s * uI[11];
      if (ix < 0 || ix >= w) continue;
      vec4 v = sampled(X, iX, (((b * h + iy) * w + ix) * c + ch) >> 2);
#ifdef MAX
      acc = max(acc, v);
#else
      acc += v;
#endif
      count++;
    }
  }
#ifdef MAX
  return acc;
#else
  return count > 0 ? acc / float(count) : vec4(NAN);
#endif
}
#else
#define SCALAR
float compute(int i) {
  int h = uI[1], w = uI[2], c = uI[3], oh = uI[4], ow = uI[5];
  int ch = i % c, p = i / c;
  int ox = p % ow;
  p /= ow;
  int oy = p % oh, b = p / oh;
#ifdef MAX
  float acc = -INF;
#else
  float acc = 0.0;
#endif
  int count = 0;
  Tex iX = texInfo(X);
  for (int r = 0; r < uI[6]; r++) {
    int iy = oy * uI[8] - uI[12] + r * uI[10];
    if (iy < 0 || iy >= h) continue;
    for (int s = 0; s < uI[7]; s++) {
      int ix = ox * uI[9] - uI[13] + s * uI[11];
      if (ix < 0 || ix >= w) continue;
      float v = sampledAt(X, iX, ((b * h + iy) * w + ix) * c + ch);
#ifdef MAX
      acc = max(acc, v);
#else
      acc += v;
#endif
      count++;
    }
  }
#ifdef MAX
  return acc;
#else
  return count > 0 ? acc / float(count) : NAN;
#endif
}
#endif
