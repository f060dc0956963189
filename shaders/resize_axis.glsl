// Source coordinates of the resize kernels in exact integer math. Output index o reads the source at
// num / den: num = rn * (2o + 1) - rd (bilinear) or rn * (2o + 1) (nearest), den = 2 rd, with
// half_pixel_centers; else num = rn * o, den = rd. rn / rd is the ratio (in - 1) / (out - 1) with
// align_corners, else in / out.

// (low index, high index, fraction) of bilinear output index o along an axis of size n
vec3 bilinearAxis(int o, int n, int rn, int rd, bool halfPixel) {
  int num = halfPixel ? rn * (2 * o + 1) - rd : rn * o;
  int den = halfPixel ? 2 * rd : rd;
  if (num < 0) return vec3(0.0, 0.0, float(num) / float(den));
  int lo = num / den, rem = num - lo * den;
  return vec3(float(lo), float(min(n - 1, rem == 0 ? lo : lo + 1)), float(rem) / float(den));
}

// the source index of nearest-neighbor output index o along an axis of size n (floor, or JS round with
// align_corners), clamped to [0, n - 1]
int nearestAxis(int o, int n, int rn, int rd, bool halfPixel, bool align) {
  int num = halfPixel ? rn * (2 * o + 1) : rn * o;
  int den = halfPixel ? 2 * rd : rd;
  int k = align ? (2 * num + den) / (2 * den) : num / den;
  return clamp(k, 0, n - 1);
}
