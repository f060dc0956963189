// Transform: image [b, h, w, c] -> [b, oh, ow, c], same dtype. Python computes, per transform row (one, or
// one per image) and output pixel, the source pixels in float64 (as the cpu kernel) into T, k values per
// pixel: nearest (k = 1) the source pixel y * w + x; bilinear (k = 8) the 4 neighbor pixels then the weights
// wx0, wx1, wy0, wy1. Pixel -1 reads uF[0], the fill value. uI[1..5]: h w, c, oh ow, k, 1 when each image
// has its own transform row.
uniform sampler2D X;
uniform sampler2D T;

float pixel(int b, int hw, int c, float p, int d) {
  return p < 0.0 ? uF[0] : at(X, (b * hw + int(p)) * c + d);
}

#define SCALAR
float compute(int i) {
  int hw = uI[1], c = uI[2], ohw = uI[3], k = uI[4];
  int d = i % c, p = i / c;
  int pix = p % ohw, b = p / ohw;
  int o = ((uI[5] == 1 ? b : 0) * ohw + pix) * k;
  if (k == 1) return pixel(b, hw, c, at(T, o), d);
  float top = at(T, o + 4) * pixel(b, hw, c, at(T, o), d) + at(T, o + 5) * pixel(b, hw, c, at(T, o + 1), d);
  float bottom = at(T, o + 4) * pixel(b, hw, c, at(T, o + 2), d) + at(T, o + 5) * pixel(b, hw, c, at(T, o + 3), d);
  return at(T, o + 6) * top + at(T, o + 7) * bottom;
}
