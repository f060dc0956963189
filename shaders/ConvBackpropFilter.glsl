// Conv2DBackpropFilter and DepthwiseConv2dNativeBackpropFilter (DEPTHWISE), NHWC: one partial sum of
// df[r, s, c, o] over the output rows q = b * oh + oy in [part * rows, (part + 1) * rows) of
// sum over ox of x[b, oy*sh - pt + r*dh, ox*sw - pl + s*dw, c] * dy[b, oy, ox, o] (DEPTHWISE: dy channel
// c * m + o); taps in the padding add nothing. Output [parts, fh, fw, ci, co or m]; the kernel sums the
// parts (many short sums keep the GPU busy where one per filter element would leave it idle).
// uI[1..16]: h, w, ci, oh, ow, co (m for DEPTHWISE), fh, fw, sh, sw, dh, dw, pt, pl, rows, b * oh.
// VEC (co or m % 4 == 0): 4 output channels per fragment.
uniform sampler2D X;
uniform sampler2D DY;

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
  int h = uI[1], w = uI[2], ci = uI[3], oh = uI[4], ow = uI[5], co = uI[6], fw = uI[8];
  int fsize = uI[7] * fw * ci * co;
  int part = i / fsize, j = i - part * fsize;
  int o = j % co, q = j / co;
  int c = q % ci;
  q /= ci;
  int s = q % fw, r = q / fw;
#ifdef DEPTHWISE
  int dyc = ci * co, d0 = c * co + o;
#else
  int dyc = co, d0 = o;
#endif
  int dr = r * uI[11] - uI[13], dc = s * uI[12] - uI[14];
  int row0 = part * uI[15], row1 = min(row0 + uI[15], uI[16]);
  T acc = T(0.0);
  for (int row = row0; row < row1; row++) {
    int b = row / oh;
    int iy = (row - b * oh) * uI[9] + dr;
    if (iy < 0 || iy >= h) continue;
    int xrow = (b * h + iy) * w;
    for (int ox = 0; ox < ow; ox++) {
      int ix = ox * uI[10] + dc;
      if (ix < 0 || ix >= w) continue;
      acc += at(X, (xrow + ix) * ci + c) * LOAD(DY, (row * ow + ox) * dyc + d0);
    }
  }
  return acc;
}
