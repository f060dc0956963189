// The output of a four-target kernel (MatMulRows4, DepthwiseConv2dX4): pixels of n elements (n % 4 == 0)
// in rows of ow pixels; pixel x of a row is pixel x / 4 of that row in target x % 4, whose rows hold
// ceil(ow / 4) pixels. uI[1] = n, uI[2] = ow (a product's m rows are one row of m pixels).
uniform sampler2D R0;
uniform sampler2D R1;
uniform sampler2D R2;
uniform sampler2D R3;

vec4 compute4(int i) {
  int n = uI[1], ow = uI[2];
  int p = i / n, y = p / ow, x = p - y * ow;
  int t = ((y * ((ow + 3) >> 2) + (x >> 2)) * n + i - p * n) >> 2;
  int j = x & 3;
  return j == 0 ? texel(R0, t) : j == 1 ? texel(R1, t) : j == 2 ? texel(R2, t) : texel(R3, t);
}
