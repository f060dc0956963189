// complex64 kernels: a complex tensor is flat (re, im) float pairs, element p at 2p and 2p + 1.
// OP_Complex: RE, IM -> pairs. OP_Part: X's component uI[1] (0 real, 1 imaginary). OP_ComplexAbs: |x|.
// OP_FFT: the DFT of each row of uI[1] complex values (direct sum, angles reduced mod n for precision);
// uF[0] = the angle step (-2 pi / n forward, 2 pi / n inverse), uF[1] = the scale (1 or 1 / n).
#define SCALAR
#ifdef OP_Complex
uniform sampler2D RE;
uniform sampler2D IM;
float compute(int i) {
  return (i & 1) == 0 ? at(RE, i >> 1) : at(IM, i >> 1);
}
#endif
#ifdef OP_Part
uniform sampler2D X;
float compute(int i) {
  return at(X, 2 * i + uI[1]);
}
#endif
#ifdef OP_ComplexAbs
uniform sampler2D X;
float compute(int i) {
  float re = at(X, 2 * i), im = at(X, 2 * i + 1);
  return length(vec2(re, im));
}
#endif
#ifdef OP_FFT
uniform sampler2D X;
float compute(int i) {
  int n = uI[1];
  int p = i >> 1;
  int k = p % n;
  int base = 2 * (p - k);
  int sh = widthShift(X);
  float re = 0.0, im = 0.0;
  for (int j = 0; j < n; j++) {
    float a = uF[0] * float((j * k) % n);
    float c = cos(a), s = sin(a);
    int e = base + 2 * j;
    float xr = texelSh(X, sh, e >> 2)[e & 3];
    float xi = texelSh(X, sh, (e + 1) >> 2)[(e + 1) & 3];
    re += xr * c - xi * s;
    im += xr * s + xi * c;
  }
  return ((i & 1) == 0 ? re : im) * uF[1];
}
#endif
