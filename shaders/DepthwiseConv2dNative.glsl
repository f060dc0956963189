// DepthwiseConv2dNative and FusedDepthwiseConv2D (NHWC): output channel oc = c * mult + m reads input
// channel c = oc / mult: out[b, oy, ox, oc] = sum over the window of x[.., c] * filter[r, s, c, m].
// uI[1..17]: h, w, ci, oh, ow, co, fh, fw, sh, sw, dh, dw, pt, pl, mult, bias size, prelu size.
// VEC (mult == 1, ci % 4 == 0): 4 channels of one pixel per fragment, input and filter read as texels.
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
      acc += sampled(X, iX, (((b * h + iy) * w + ix) * ci + oc) >> 2) * sampled(F, iF, ((r * fw + s) * co + oc) >> 2);
    }
  }
  return epilogue4(acc, i, uI[16], uI[17]);
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
  int c = oc / uI[15];
  float acc = 0.0;
  for (int r = 0; r < fh; r++) {
    int iy = oy * sh - uI[13] + r * dh;
    if (iy < 0 || iy >= h) continue;
    for (int s = 0; s < fw; s++) {
      int ix = ox * sw - uI[14] + s * dw;
      if (ix < 0 || ix >= w) continue;
      acc += at(X, ((b * h + iy) * w + ix) * ci + c) * at(F, (r * fw + s) * co + oc);
    }
  }
  return epilogue1(acc, i, uI[16], uI[17]);
}
#endif
