// MaxPoolWithArgmax, NHWC: the first maximum of each window's in-bounds taps (a NaN first tap stays), as
// its value or (INDEX) its flat index ((b * h if uI[14] else 0) + y) * w * c + x * c + ch.
// uI[1..13]: h, w, c, oh, ow, fh, fw, sh, sw, dh, dw, pt, pl (as shaders/Pool.glsl); uI[14]: batch in index.
uniform sampler2D X;

#define SCALAR
float compute(int i) {
  int h = uI[1], w = uI[2], c = uI[3], oh = uI[4], ow = uI[5];
  int ch = i % c, p = i / c;
  int ox = p % ow;
  p /= ow;
  int oy = p % oh, b = p / oh;
  float best = -INF;
  int where = -1;
  for (int r = 0; r < uI[6]; r++) {
    int iy = oy * uI[8] - uI[12] + r * uI[10];
    if (iy < 0 || iy >= h) continue;
    for (int s = 0; s < uI[7]; s++) {
      int ix = ox * uI[9] - uI[13] + s * uI[11];
      if (ix < 0 || ix >= w) continue;
      float v = at(X, ((b * h + iy) * w + ix) * c + ch);
      if (v > best || where < 0) {
        best = v;
        where = ((uI[14] != 0 ? b * h : 0) + iy) * w * c + ix * c + ch;
      }
    }
  }
#ifdef INDEX
  return float(where);
#else
  return best;
#endif
}
