// The output of MatMulRows4 from its four targets: row r of [m, n] (n % 4 == 0) is row r / 4 of target
// r % 4. uI[1] = n.
uniform sampler2D R0;
uniform sampler2D R1;
uniform sampler2D R2;
uniform sampler2D R3;

vec4 compute4(int i) {
  int n = uI[1];
  int r = i / n;
  int t = ((r >> 2) * n + i - r * n) >> 2;
  int j = r & 3;
  return j == 0 ? texel(R0, t) : j == 1 ? texel(R1, t) : j == 2 ? texel(R2, t) : texel(R3, t);
}
