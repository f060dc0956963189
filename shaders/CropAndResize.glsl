// CropAndResize: image [b, h, w, c] -> [n, ch, cw, c]. The sample positions are computed by Python in
// float64 (as the cpu kernel; float32 would move JS-rounding ties) into table T, per box k at
// o = k * (1 + 3 ch + 3 cw): the image index (-1: box outside the batch -> zeros), then per crop row
// (top, bottom, fraction) and per crop column (left, right, fraction); top or left -1 marks a sample
// outside the image (-> uF[0], the extrapolation value). Nearest sampling has top == bottom, fraction 0.
// uI[1..4]: h, w, c, ch; uI[5] = cw.
uniform sampler2D X;
uniform sampler2D T;

#define SCALAR
float compute(int i) {
  int h = uI[1], w = uI[2], c = uI[3], ch = uI[4], cw = uI[5];
  int d = i % c, p = i / c;
  int x = p % cw;
  p /= cw;
  int y = p % ch, k = p / ch;
  int o = k * (1 + 3 * ch + 3 * cw);
  int b = int(at(T, o));
  if (b < 0) return 0.0;
  int ro = o + 1 + 3 * y, co = o + 1 + 3 * ch + 3 * x;
  int y0 = int(at(T, ro)), x0 = int(at(T, co));
  if (y0 < 0 || x0 < 0) return uF[0];
  int y1 = int(at(T, ro + 1)), x1 = int(at(T, co + 1));
  float fy = at(T, ro + 2), fx = at(T, co + 2);
  int base = b * h;
  float tl = at(X, ((base + y0) * w + x0) * c + d), tr = at(X, ((base + y0) * w + x1) * c + d);
  float bl = at(X, ((base + y1) * w + x0) * c + d), br = at(X, ((base + y1) * w + x1) * c + d);
  float top = tl + (tr - tl) * fx, bottom = bl + (br - bl) * fx;
  return top + (bottom - top) * fy;
}
