// GatherV2: x seen as [batch, outer, dim, inner], indices as [batch, per]; output [batch, outer, per, inner].
// uI[1] = outer, uI[2] = dim, uI[3] = inner, uI[4] = per. Indices outside [0, dim) read 0 (TF.js webgl).
// VEC: inner % 4 == 0, so 4 consecutive outputs are one source texel.
uniform sampler2D X;
uniform sampler2D I;

int sourceIndex(int i) {
  int outer = uI[1], dim = uI[2], inner = uI[3], per = uI[4];
  int k = i % inner, r = i / inner;
  int j = r % per;
  r /= per;
  int o = r % outer, b = r / outer;
  int idx = int(at(I, b * per + j));
  if (idx < 0 || idx >= dim) return -1;
  return ((b * outer + o) * dim + idx) * inner + k;
}

#ifdef VEC
vec4 compute4(int i) {
  int s = sourceIndex(i);
  return s < 0 ? vec4(0.0) : texel(X, s >> 2);
}
#else
#define SCALAR
float compute(int i) {
  int s = sourceIndex(i);
  return s < 0 ? 0.0 : at(X, s);
}
#endif
