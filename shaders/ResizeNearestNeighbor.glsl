// ResizeNearestNeighbor: images [b, h, w, c] -> [b, nh, nw, c], same dtype; source indices as in
// resize_axis.glsl. uI[1..11]: h, w, c, nh, nw, half, align, rn_h, rd_h, rn_w, rd_w. VEC: c % 4 == 0.
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
  bool halfPixel = uI[6] == 1, align = uI[7] == 1;
  int src = ((b * h + nearestAxis(y, h, uI[8], uI[9], halfPixel, align)) * w +
            nearestAxis(x, w, uI[10], uI[11], halfPixel, align)) * c + ch;
#ifdef VEC
  return texel(X, src >> 2);
#else
  return at(X, src);
#endif
}
