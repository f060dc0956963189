// Dilation2D, NHWC: each output is the max over its dilated window's in-bounds taps of x + filter
// (filter [fh, fw, c]); a window with no tap gives TF.js's start value. uI[1..13]: h, w, c, oh, ow, fh, fw,
// sh, sw, dh, dw, pt, pl (as shaders/Pool.glsl).
uniform sampler2D X;
uniform sampler2D F;

#define SCALAR
float compute(int i) {
  int h = uI[1], w = uI[2], c = uI[3], oh = uI[4], ow = uI[5], fw = uI[7];
  int ch = i % c, p = i / c;
  int ox = p % ow;
  p /= ow;
  int oy = p % oh, b = p / oh;
  float best = -9007199254740991.0;
  for (int r = 0; r < uI[6]; r++) {
    int iy = oy * uI[8] - uI[12] + r * uI[10];
    if (iy < 0 || iy >= h) continue;
    for (int s = 0; s < fw; s++) {
      int ix = ox * uI[9] - uI[13] + s * uI[11];
      if (ix < 0 || ix >= w) continue;
      float v = at(X, ((b * h + iy) * w + ix) * c + ch) + at(F, (r * fw + s) * c + ch);
      if (v > best) best = v;
    }
  }
  return best;
}
