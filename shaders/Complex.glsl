// complex64 kernels: a complex tensor is flat (re, im) float pairs, element p at 2p and 2p + 1.
// OP_Complex: RE, IM -> pairs. OP_Part: X's component uI[1] (0 real, 1 imaginary). OP_ComplexAbs: |x|.
// OP_FFT: the DFT of each row of uI[1] complex values (direct sum, angles reduced mod n for precision);
// uF[0] = the angle step (-2 pi / n forward, 2 pi / n inverse), uF[1] = the scale (1 or 1 / n).
// OP_FromReal: a real X as pairs (x, 0). OP_Binary: complex Add / Sub / Multiply (below).
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
#ifdef OP_FromReal
uniform sampler2D X;
float compute(int i) {
  return (i & 1) == 0 ? at(X, i >> 1) : 0.0;
}
#endif
#ifdef OP_Binary
// complex Add (CADD), Sub (CSUB), Multiply (CMUL) with broadcasting: A_COMPLEX / B_COMPLEX (true or false) say
// whether an operand holds pairs; RANK dims of the output at uI[1..], then A's and B's element strides.
uniform sampler2D A;
uniform sampler2D B;
int operandIndex(int p, int strides) {
  int idx = 0;
  for (int d = RANK - 1; d >= 0; d--) {
    int n = uI[1 + d];
    idx += (p % n) * uI[strides + d];
    p /= n;
  }
  return idx;
}
vec2 operand(sampler2D s, bool pairs, int j) {
  return pairs ? vec2(at(s, 2 * j), at(s, 2 * j + 1)) : vec2(at(s, j), 0.0);
}
float compute(int i) {
  int p = i >> 1;
  vec2 a = operand(A, A_COMPLEX, operandIndex(p, 1 + RANK));
  vec2 b = operand(B, B_COMPLEX, operandIndex(p, 1 + 2 * RANK));
#if defined(CMUL)
  vec2 r = vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
#elif defined(CSUB)
  vec2 r = a - b;
#else
  vec2 r = a + b;
#endif
  return (i & 1) == 0 ? r.x : r.y;
}
#endif
