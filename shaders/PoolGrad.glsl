// MaxPoolGrad (MAX) and AvgPoolGrad (AVG), NHWC: dx[b, y, x, c] = sum over the windows (oy, ox) holding
// (y, x) of dy[b, oy, ox, c] where (y, x) is the window's first maximum of X over its in-bounds taps (MAX;
// NaN never wins), or of dy / the window's in-bounds count (AVG, the forward's divisor).
// uI[1..11]: h, w, c, oh, ow, fh, fw, sh, sw, pt, pl. VEC (c % 4 == 0): 4 channels of one pixel.
uniform sampler2D DY;
#ifdef MAX
uniform sampler2D X;
#endif

#ifdef VEC
#define T vec4
#define LOAD(s, k) texel(s, (k) >> 2)
#define GT(a, b) greaterThan(a, b)
#define EQ(a, b) equal(a, b)
vec4 compute4(int i) {
#else
#define SCALAR
#define T float
#define LOAD(s, k) at(s, k)
#define GT(a, b) ((a) > (b))
#define EQ(a, b) ((a) == (b))
float compute(int i) {
#endif
  int h = uI[1], w = uI[2], c = uI[3], oh = uI[4], ow = uI[5];
  int fh = uI[6], fw = uI[7], sh = uI[8], sw = uI[9];
  int ch = i % c, p = i / c;
  int x = p % w;
  p /= w;
  int y = p % h, b = p / h;
  T acc = T(0.0);
  for (int r = 0; r < fh; r++) {
    int ty = y + uI[10] - r;
    if (ty < 0 || ty % sh != 0 || ty / sh >= oh) continue;
    int oy = ty / sh, y0 = y - r;
    for (int s = 0; s < fw; s++) {
      int tx = x + uI[11] - s;
      if (tx < 0 || tx % sw != 0 || tx / sw >= ow) continue;
      int ox = tx / sw, x0 = x - s;
      T g = LOAD(DY, ((b * oh + oy) * ow + ox) * c + ch);
#ifdef MAX
      T best = T(-INF), arg = T(-1.0);
      for (int r2 = max(0, -y0); r2 < min(fh, h - y0); r2++) {
        for (int s2 = max(0, -x0); s2 < min(fw, w - x0); s2++) {
          T v = LOAD(X, ((b * h + y0 + r2) * w + x0 + s2) * c + ch);
          arg = mix(arg, T(float(r2 * fw + s2)), GT(v, best));
          best = mix(best, v, GT(v, best));
        }
      }
      acc += mix(T(0.0), g, EQ(arg, T(float(r * fw + s))));
#else
      float count = float((min(y0 + fh, h) - max(y0, 0)) * (min(x0 + fw, w) - max(x0, 0)));
      acc += g / count;
#endif
    }
  }
  return acc;
}
