// Concat and Pack: up to 8 inputs, each seen as [outer, inner_k], side by side in an [outer, total] output.
// uI[1] = total; input k: inner uI[2 + 2k], first column uI[3 + 2k]. Python puts PART(k, Xk) for each input
// into the PARTS hole (samplers cannot be indexed by a variable). VEC: every inner_k % 4 == 0.
uniform sampler2D X0;
uniform sampler2D X1;
uniform sampler2D X2;
uniform sampler2D X3;
uniform sampler2D X4;
uniform sampler2D X5;
uniform sampler2D X6;
uniform sampler2D X7;

#ifdef VEC
#define PART(k, X) if (col < uI[3 + 2 * k] + uI[2 + 2 * k]) return texel(X, (row * uI[2 + 2 * k] + col - uI[3 + 2 * k]) >> 2);
vec4 compute4(int i) {
  int total = uI[1], row = i / total, col = i % total;
  {{PARTS}}
  return vec4(0.0);
}
#else
#define SCALAR
#define PART(k, X) if (col < uI[3 + 2 * k] + uI[2 + 2 * k]) return at(X, row * uI[2 + 2 * k] + col - uI[3 + 2 * k]);
float compute(int i) {
  int total = uI[1], row = i / total, col = i % total;
  {{PARTS}}
  return 0.0;
}
#endif
