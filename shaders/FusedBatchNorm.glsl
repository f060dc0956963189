// FusedBatchNorm: out[i] = offset + (x - mean) * scale / sqrt(variance + eps), each parameter read at
// i modulo its size. uI[1..4] = sizes of mean, variance, offset, scale (0: absent, offset 0 / scale 1);
// uF[0] = variance_epsilon.
uniform sampler2D X;
uniform sampler2D M;
uniform sampler2D V;
uniform sampler2D O;
uniform sampler2D S;

#define SCALAR
float compute(int i) {
  float off = uI[3] > 0 ? at(O, i % uI[3]) : 0.0;
  float scale = uI[4] > 0 ? at(S, i % uI[4]) : 1.0;
  return off + (at(X, i) - at(M, i % uI[1])) * scale / sqrt(at(V, i % uI[2]) + uF[0]);
}
