// ResizeBilinearGrad (BILINEAR) and ResizeNearestNeighborGrad: dx[b, y, x, c] = sum over the dy pixels
// (oy, ox) that read source pixel (y, x) of dy[b, oy, ox, c] times the forward's weights of (y, x) there
// (1 for nearest). Along each axis only output indices whose source coordinate can lie within 1 of the
// index are visited (bounds from the float ratio, widened by 1), each checked in the forward's exact math.
// uI[1..11]: h, w, c, nh, nw, half, align, rn_h, rd_h, rn_w, rd_w. VEC: c % 4 == 0.
uniform sampler2D DY;
//#include resize_axis

// the weight of source index k in output index o's interpolation along an axis of size n
float weight(int o, int k, int n, int rn, int rd) {
#ifdef BILINEAR
  vec3 a = bilinearAxis(o, n, rn, rd, uI[6] == 1);
  return (int(a.x) == k ? 1.0 - a.z : 0.0) + (int(a.y) == k ? a.z : 0.0);
#else
  return nearestAxis(o, n, rn, rd, uI[6] == 1, uI[7] == 1) == k ? 1.0 : 0.0;
#endif
}

// [first, last] output indices (of nOut) that may read source index k
ivec2 candidates(int k, int nOut, int rn, int rd) {
  if (rn == 0) return ivec2(0, nOut - 1);
  float ratio = float(rn) / float(rd);
  int lo = int(floor(float(k - 1) / ratio - 0.5)) - 1, hi = int(ceil(float(k) / ratio + 1.5 / ratio)) + 1;
  return ivec2(max(0, lo), min(nOut - 1, hi));
}

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
  int h = uI[1], w = uI[2], c = uI[3], nh = uI[4], nw = uI[5];
  int ch = i % c, p = i / c;
  int x = p % w;
  p /= w;
  int y = p % h, b = p / h;
  ivec2 ry = candidates(y, nh, uI[8], uI[9]), rx = candidates(x, nw, uI[10], uI[11]);
  T acc = T(0.0);
  for (int oy = ry.x; oy <= ry.y; oy++) {
    float wy = weight(oy, y, h, uI[8], uI[9]);
    if (wy == 0.0) continue;
    for (int ox = rx.x; ox <= rx.y; ox++) {
      float wx = weight(ox, x, w, uI[10], uI[11]);
      if (wx != 0.0) acc += wy * wx * LOAD(DY, ((b * nh + oy) * nw + ox) * c + ch);
    }
  }
  return acc;
}
