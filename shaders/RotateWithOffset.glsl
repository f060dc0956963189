// RotateWithOffset: image [b, h, w, c] -> the same shape and dtype. Python computes each output pixel's
// source pixel in float64 (as the cpu kernel; float32 would move JS-rounding ties) into T[0, h w): the
// source pixel y * w + x, or -1 outside the image, which reads the channel's fill value T[h w + channel].
// uI[1..2]: h w, c.
uniform sampler2D X;
uniform sampler2D T;

#define SCALAR
float compute(int i) {
  int hw = uI[1], c = uI[2];
  int d = i % c, p = i / c;
  int pix = p % hw, b = p / hw;
  int src = int(at(T, pix));
  return src < 0 ? at(T, hw + d) : at(X, (b * hw + src) * c + d);
}
