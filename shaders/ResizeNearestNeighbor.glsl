// ResizeNearestNeighbor: images [b, h, w, c] -> [b, nh, nw, c], same dtype. Source coordinate of output
// index o: num / den with num = rn * (2o + 1), den = 2 rd (half_pixel_centers) or num = rn * o, den = rd;
// the index is floor (or JS round with align_corners), clamped to [0, n - 1], in exact integer math.
// uI[1..11]: h, w, c, nh, nw, half, align, rn_h, rd_h, rn_w, rd_w. VEC: c % 4 == 0.
uniform sampler2D X;

int nearest(int o, int n, int rn, int rd) {
  int num = uI[6] == 1 ? rn * (2 * o + 1) : rn * o;
  int den = uI[6] == 1 ? 2 * rd : rd;
  int k = uI[7] == 1 ? (2 * num + den) / (2 * den) : num / den;
  return clamp(k, 0, n - 1);
}

#ifdef VEC
vec4 compute4(int i) {
#else
#define SCALAR
float compute(int i) {
#endif
  int h = uI[1], w = uI[2], c = uI[3], nh = uI[4], nw = uI[5];
  int ch = i % c, p = i / c;
  int x = p % nw;
  p /= nw;
  int y = p % nh, b = p / nh;
  int src = ((b * h + nearest(y, h, uI[8], uI[9])) * w + nearest(x, w, uI[10], uI[11])) * c + ch;
#ifdef VEC
  return texel(X, src >> 2);
#else
  return at(X, src);
#endif
}
