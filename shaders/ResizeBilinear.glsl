// ResizeBilinear: images [b, h, w, c] -> [b, nh, nw, c]. The source coordinate of output row o is the
// rational num / den with num = rn * (2o + 1) - rd, den = 2 rd (half_pixel_centers) or num = rn * o,
// den = rd, where rn / rd is the ratio (in - 1) / (out - 1) (align_corners) or in / out; integer math
// keeps floor/ceil exact. uI[1..10]: h, w, c, nh, nw, half, rn_h, rd_h, rn_w, rd_w. VEC: c % 4 == 0.
uniform sampler2D X;

// (low index, high index, fraction) along one axis of size n for output index o
vec3 axis(int o, int n, int rn, int rd) {
  int num = uI[6] == 1 ? rn * (2 * o + 1) - rd : rn * o;
  int den = uI[6] == 1 ? 2 * rd : rd;
  if (num < 0) return vec3(0.0, 0.0, float(num) / float(den));
  int lo = num / den, rem = num - lo * den;
  return vec3(float(lo), float(min(n - 1, rem == 0 ? lo : lo + 1)), float(rem) / float(den));
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
  vec3 ay = axis(y, h, uI[7], uI[8]), ax = axis(x, w, uI[9], uI[10]);
  int row0 = (b * h + int(ay.x)) * w, row1 = (b * h + int(ay.y)) * w;
  int x0 = int(ax.x), x1 = int(ax.y);
#ifdef VEC
  vec4 tl = texel(X, ((row0 + x0) * c + ch) >> 2), tr = texel(X, ((row0 + x1) * c + ch) >> 2);
  vec4 bl = texel(X, ((row1 + x0) * c + ch) >> 2), br = texel(X, ((row1 + x1) * c + ch) >> 2);
  vec4 top = tl + (tr - tl) * ax.z, bottom = bl + (br - bl) * ax.z;
#else
  float tl = at(X, (row0 + x0) * c + ch), tr = at(X, (row0 + x1) * c + ch);
  float bl = at(X, (row1 + x0) * c + ch), br = at(X, (row1 + x1) * c + ch);
  float top = tl + (tr - tl) * ax.z, bottom = bl + (br - bl) * ax.z;
#endif
  return top + (bottom - top) * ay.z;
}
