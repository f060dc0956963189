// MaxPool3D (MAX), AvgPool3D (AVG) and their gradients (MAX with GRAD, AVG with GRAD), NDHWC.
// uI[1..16]: d, h, w, c, od, oh, ow, fd, fh, fw, sd, sh, sw, pf, pt, pl (d, h, w: x's size).
// Forward: each output reduces its window's in-bounds taps (MAX: nan and padding never win, -inf if none;
// AVG: their mean, 0 if none). GRAD: dx[b, z, y, x, ch] sums dy over the windows holding (z, y, x): all of
// dy / the window's in-bounds count (AVG), or dy where (z, y, x) is the window's last maximum (MAX).
uniform sampler2D X;
#ifdef GRAD
uniform sampler2D DY;
#endif

#define SCALAR
// The window of output (oz, oy, ox): its in-bounds tap count (AVG) or its last maximum's flat position in x
// (MAX; -1 if none), for batch b and channel ch.
int window_of(int b, int ch, int oz, int oy, int ox, out float best) {
  int d = uI[1], h = uI[2], w = uI[3], c = uI[4];
  best = -INF;
  int at_ = -1, count = 0;
  for (int kz = 0; kz < uI[8]; kz++) {
    int z = oz * uI[11] - uI[14] + kz;
    if (z < 0 || z >= d) continue;
    for (int ky = 0; ky < uI[9]; ky++) {
      int y = oy * uI[12] - uI[15] + ky;
      if (y < 0 || y >= h) continue;
      for (int kx = 0; kx < uI[10]; kx++) {
        int x = ox * uI[13] - uI[16] + kx;
        if (x < 0 || x >= w) continue;
        int pos = ((b * d + z) * h + y) * w + x;
        float v = at(X, pos * c + ch);
#ifdef MAX
#ifdef GRAD
        if (v >= best) {
#else
        if (v > best) {
#endif
          best = v;
          at_ = pos;
        }
#else
        best = count == 0 ? v : best + v;
#endif
        count++;
      }
    }
  }
#ifdef MAX
  return at_;
#else
  return count;
#endif
}

float compute(int i) {
  int d = uI[1], h = uI[2], w = uI[3], c = uI[4], od = uI[5], oh = uI[6], ow = uI[7];
  int ch = i % c, p = i / c;
  float best;
#ifndef GRAD
  int ox = p % ow;
  p /= ow;
  int oy = p % oh;
  p /= oh;
  int oz = p % od, b = p / od;
  int n = window_of(b, ch, oz, oy, ox, best);
#ifdef MAX
  return best;
#else
  return n > 0 ? best / float(n) : 0.0;
#endif
#else
  int x = p % w;
  p /= w;
  int y = p % h;
  p /= h;
  int z = p % d, b = p / d;
  int self_ = ((b * d + z) * h + y) * w + x;
  float acc = 0.0;
  for (int kz = 0; kz < uI[8]; kz++) {
    int tz = z + uI[14] - kz;
    if (tz < 0 || tz % uI[11] != 0 || tz / uI[11] >= od) continue;
    for (int ky = 0; ky < uI[9]; ky++) {
      int ty = y + uI[15] - ky;
      if (ty < 0 || ty % uI[12] != 0 || ty / uI[12] >= oh) continue;
      for (int kx = 0; kx < uI[10]; kx++) {
        int tx = x + uI[16] - kx;
        if (tx < 0 || tx % uI[13] != 0 || tx / uI[13] >= ow) continue;
        int oz = tz / uI[11], oy = ty / uI[12], ox = tx / uI[13];
        float g = at(DY, (((b * od + oz) * oh + oy) * ow + ox) * c + ch);
        int n = window_of(b, ch, oz, oy, ox, best);
#ifdef MAX
        if (n == self_) acc += g;
#else
        acc += g / float(n);
#endif
      }
    }
  }
  return acc;
#endif
}
