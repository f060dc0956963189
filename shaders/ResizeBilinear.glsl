// ResizeBilinear: images [b, h, w, c] -> [b, nh, nw, c]; source coordinates as in resize_axis.glsl.
// uI[1..10]: h, w, c, nh, nw, half, rn_h, rd_h, rn_w, rd_w. VEC: c % 4 == 0.
uniform sampler2D X;
//#include resize_axis

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
  vec3 ay = bilinearAxis(y, h, uI[7], uI[8], uI[6] == 1), ax = bilinearAxis(x, w, uI[9], uI[10], uI[6] == 1);
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
