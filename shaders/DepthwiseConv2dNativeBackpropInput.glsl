// DepthwiseConv2dNativeBackpropInput (NHWC): dx[b, y, x, c] = sum over the filter taps (r, s) whose output
// position ((y + pt - r*dh) / sh, (x + pl - s*dw) / sw) is whole and in range, of
// sum over j < m of dy[b, oy, ox, c * m + j] * filter[r, s, c, j].
// uI[1..14]: h, w, c, oh, ow, m, fh, fw, sh, sw, dh, dw, pt, pl. VEC (c % 4 == 0 and m == 1): 4 channels.
uniform sampler2D DY;
uniform sampler2D F;

#ifdef VEC
#define T vec4
#define LOAD(s, k) texel(s, (k) >> 2)
vec4 compute4(int i) {
#else
#define SCALAR
#define T float
#define LOAD(s, k) at(s, k)
float compute(int i) {
#endif
  int h = uI[1], w = uI[2], ci = uI[3], oh = uI[4], ow = uI[5], m = uI[6];
  int fw = uI[8], sh = uI[9], sw = uI[10];
  int c = i % ci, p = i / ci;
  int x = p % w;
  p /= w;
  int y = p % h, b = p / h;
  T acc = T(0.0);
  for (int r = 0; r < uI[7]; r++) {
    int ty = y + uI[13] - r * uI[11];
    if (ty < 0 || ty % sh != 0 || ty / sh >= oh) continue;
    for (int s = 0; s < fw; s++) {
      int tx = x + uI[14] - s * uI[12];
      if (tx < 0 || tx % sw != 0 || tx / sw >= ow) continue;
      int dyo = (((b * oh + ty / sh) * ow + tx / sw) * ci + c) * m;
      int fo = ((r * fw + s) * ci + c) * m;
      for (int j = 0; j < m; j++) acc += LOAD(DY, dyo + j) * LOAD(F, fo + j);
    }
  }
  return acc;
}
