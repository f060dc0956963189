// Conv3D (default), Conv3DBackpropInputV2 (DX) and Conv3DBackpropFilterV2 (DW), NDHWC, filter
// [fd, fh, fw, ci, co]. uI[1..20]: d, h, w, ci, od, oh, ow, co, fd, fh, fw, sd, sh, sw, dd, dh, dw, pf, pt, pl
// (d, h, w: x's size; od, oh, ow: the forward output's). Taps in the padding are skipped.
// Default: out[b, z, y, x, oc] = sum over taps and ci of x[b, z*sd - pf + kz*dd, ...] * f[kz, ky, kx, c, oc].
// DX: dx[b, z, y, x, c] = sum over taps and co of dy at the output positions whose window puts that tap on
// (z, y, x) times f[kz, ky, kx, c, oc]. DW: df[kz, ky, kx, c, oc] = sum over b and the output positions of
// x under that tap times dy.
#ifdef DX
uniform sampler2D DY;
#else
uniform sampler2D X;
#endif
#ifdef DW
uniform sampler2D DY;
#else
uniform sampler2D F;
#endif

#define SCALAR
float compute(int i) {
  int d = uI[1], h = uI[2], w = uI[3], ci = uI[4], od = uI[5], oh = uI[6], ow = uI[7], co = uI[8];
  int fd = uI[9], fh = uI[10], fw = uI[11], sd = uI[12], sh = uI[13], sw = uI[14];
  int dd = uI[15], dh = uI[16], dw = uI[17], pf = uI[18], pt = uI[19], pl = uI[20];
  float acc = 0.0;
#if defined(DX)
  int c = i % ci, p = i / ci;
  int x = p % w;
  p /= w;
  int y = p % h;
  p /= h;
  int z = p % d, b = p / d;
  for (int kz = 0; kz < fd; kz++) {
    int tz = z + pf - kz * dd;
    if (tz < 0 || tz % sd != 0 || tz / sd >= od) continue;
    for (int ky = 0; ky < fh; ky++) {
      int ty = y + pt - ky * dh;
      if (ty < 0 || ty % sh != 0 || ty / sh >= oh) continue;
      for (int kx = 0; kx < fw; kx++) {
        int tx = x + pl - kx * dw;
        if (tx < 0 || tx % sw != 0 || tx / sw >= ow) continue;
        int go = (((b * od + tz / sd) * oh + ty / sh) * ow + tx / sw) * co;
        int fo = (((kz * fh + ky) * fw + kx) * ci + c) * co;
        for (int oc = 0; oc < co; oc++) acc += at(DY, go + oc) * at(F, fo + oc);
      }
    }
  }
#elif defined(DW)
  int oc = i % co, p = i / co;
  int c = p % ci;
  p /= ci;
  int kx = p % fw;
  p /= fw;
  int ky = p % fh, kz = p / fh;
  int batch = uI[21];
  for (int b = 0; b < batch; b++) {
    for (int oz = 0; oz < od; oz++) {
      int z = oz * sd - pf + kz * dd;
      if (z < 0 || z >= d) continue;
      for (int oy = 0; oy < oh; oy++) {
        int y = oy * sh - pt + ky * dh;
        if (y < 0 || y >= h) continue;
        for (int ox = 0; ox < ow; ox++) {
          int x = ox * sw - pl + kx * dw;
          if (x < 0 || x >= w) continue;
          acc += at(X, (((b * d + z) * h + y) * w + x) * ci + c) * at(DY, (((b * od + oz) * oh + oy) * ow + ox) * co + oc);
        }
      }
    }
  }
#else
  int oc = i % co, p = i / co;
  int ox = p % ow;
  p /= ow;
  int oy = p % oh;
  p /= oh;
  int oz = p % od, b = p / od;
  for (int kz = 0; kz < fd; kz++) {
    int z = oz * sd - pf + kz * dd;
    if (z < 0 || z >= d) continue;
    for (int ky = 0; ky < fh; ky++) {
      int y = oy * sh - pt + ky * dh;
      if (y < 0 || y >= h) continue;
      for (int kx = 0; kx < fw; kx++) {
        int x = ox * sw - pl + kx * dw;
        if (x < 0 || x >= w) continue;
        int xo = (((b * d + z) * h + y) * w + x) * ci;
        int fo = ((kz * fh + ky) * fw + kx) * ci * co + oc;
        for (int c = 0; c < ci; c++) acc += at(X, xo + c) * at(F, fo + c * co);
      }
    }
  }
#endif
  return acc;
}
