// Conv2D and FusedConv2D (NHWC): out[b, oy, ox, oc] = sum over the fh x fw window and the in channels of
// x[b, oy*sh - pt + r*dh, ox*sw - pl + s*dw, c] * filter[r, s, c, oc] (+ bias, activation); taps that
// fall in the padding are skipped. uI[1..16]: h, w, ci, oh, ow, co, fh, fw, sh, sw, dh, dw, pt, pl,
// bias size, prelu size.
// VEC (co % 4 == 0): a fragment computes 4 output channels of one pixel, reading filter texels;
// CI4 (ci % 4 == 0): input pixels are read 4 channels (one texel) at a time.
uniform sampler2D X;
uniform sampler2D F;
//#include epilogue
//#include sampled

#ifdef VEC
vec4 compute4(int i) {
  int h = uI[1], w = uI[2], ci = uI[3], oh = uI[4], ow = uI[5], co = uI[6];
  int fh = uI[7], fw = uI[8], sh = uI[9], sw = uI[10], dh = uI[11], dw = uI[12];
  int oc = i % co, p = i / co;
  int ox = p % ow;
  p /= ow;
  int oy = p % oh, b = p / oh;
  vec4 acc = vec4(0.0);
  Tex iX = texInfo(X), iF = texInfo(F);
  for (int r = 0; r < fh; r++) {
    int iy = oy * sh - uI[13] + r * dh;
    if (iy < 0 || iy >= h) continue;
    for (int s = 0; s < fw; s++) {
      int ix = ox * sw - uI[14] + s * dw;
      if (ix < 0 || ix >= w) continue;
      int xo = ((b * h + iy) * w + ix) * ci;
      int fo = (r * fw + s) * ci * co + oc;
#ifdef CI4
      // texel indices advance by one (x) and by co / 4 per input channel (filter rows)
      int tx = xo >> 2, tf = fo >> 2, cq = co >> 2;
      for (int c = 0; c < ci; c += 4) {
        vec4 xv = sampled(X, iX, tx);
        acc += sampled(F, iF, tf) * xv.x + sampled(F, iF, tf + cq) * xv.y + sampled(F, iF, tf + 2 * cq) * xv.z +
               sampled(F, iF, tf + 3 * cq) * xv.w;
        tx++;
        tf += 4 * cq;
      }
#else
      for (int c = 0; c < ci; c++) {
        acc += sampledAt(X, iX, xo + c) * sampled(F, iF, (fo + c * co) >> 2);
      }
#endif
    }
  }
  return epilogue4(acc, i, uI[15], uI[16]);
}
#else
#define SCALAR
float compute(int i) {
  int h = uI[1], w = uI[2], ci = uI[3], oh = uI[4], ow = uI[5], co = uI[6];
  int fh = uI[7], fw = uI[8], sh = uI[9], sw = uI[10], dh = uI[11], dw = uI[12];
  int oc = i % co, p = i / co;
  int ox = p % ow;
  p /= ow;
  int oy = p % oh, b = p / oh;
  float acc = 0.0;
  for (int r = 0; r < fh; r++) {
    int iy = oy * sh - uI[13] + r * dh;
    if (iy < 0 || iy >= h) continue;
    for (int s = 0; s < fw; s++) {
      int ix = ox * sw - uI[14] + s * dw;
      if (ix < 0 || ix >= w) continue;
      int xo = ((b * h + iy) * w + ix) * ci;
      int fo = (r * fw + s) * ci * co + oc;
#ifdef CI4
      for (int c = 0; c < ci; c += 4) {
        acc += dot(texel(X, (xo + c) >> 2),
                   vec4(at(F, fo + c * co), at(F, fo + (c + 1) * co), at(F, fo + (c + 2) * co), at(F, fo + (c + 3) * co)));
      }
#else
      for (int c = 0; c < ci; c++) {
        acc += at(X, xo + c) * at(F, fo + c * co);
      }
#endif
    }
  }
  return epilogue1(acc, i, uI[15], uI[16]);
}
#endif
