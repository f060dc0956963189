// FlipLeftRight: image [b, h, w, c] -> the same shape, each row's pixels in reverse order, same dtype.
// uI[1..2]: w, c. VEC: c % 4 == 0 (a pixel is whole texels).
uniform sampler2D X;

#ifdef VEC
vec4 compute4(int i) {
#else
#define SCALAR
float compute(int i) {
#endif
  int w = uI[1], c = uI[2];
  int d = i % c, p = i / c;
  int x = p % w, row = p / w;
  int src = (row * w + (w - 1 - x)) * c + d;
#ifdef VEC
  return texel(X, src >> 2);
#else
  return at(X, src);
#endif
}
