// Conv2DBackpropInput (NHWC, dilation 1): dx[b, y, x, d1] = sum over filter taps (r, s) whose output
// position ((y + pt - r) / sh, (x + pl - s) / sw) is whole and in range, of
// sum_d2 dy[b, yo, xo, d2] * filter[r, s, d1, d2].
// uI[1..12]: h, w, ci (dx), oh, ow, co (dy), fh, fw, sh, sw, pt, pl. CO4 (co % 4 == 0): dot products of texels.
uniform sampler2D DY;
uniform sampler2D F;
//#include sampled

#define SCALAR
float compute(int i) {
  int h = uI[1], w = uI[2], ci = uI[3], oh = uI[4], ow = uI[5], co = uI[6];
  int fh = uI[7], fw = uI[8], sh = uI[9], sw = uI[10];
  int d1 = i % ci, p = i / ci;
  int x = p % w;
  p /= w;
  int y = p % h, b = p / h;
  float acc = 0.0;
  Tex iDY = texInfo(DY), iF = texInfo(F);
  for (int r = 0; r < fh; r++) {
    int ty = y + uI[11] - r;
    if (ty < 0 || ty % sh != 0 || ty / sh >= oh) continue;
    for (int s = 0; s < fw; s++) {
      int tx = x + uI[12] - s;
      if (tx < 0 || tx % sw != 0 || tx / sw >= ow) continue;
      int dyo = ((b * oh + ty / sh) * ow + tx / sw) * co;
      int fo = ((r * fw + s) * ci + d1) * co;
#ifdef CO4
      for (int d2 = 0; d2 < co; d2 += 4) acc += dot(sampled(DY, iDY, (dyo + d2) >> 2), sampled(F, iF, (fo + d2) >> 2));
#else
      for (int d2 = 0; d2 < co; d2++) acc += sampledAt(DY, iDY, dyo + d2) * sampledAt(F, iF, fo + d2);
#endif
    }
  }
  return acc;
}
