// Softmax and LogSoftmax over the last axis (rows of n = uI[1] logits), in two programs:
// STATS: output [rows, 2] = (row max, sum of exp(x - max)); otherwise (S = the stats) the result
// exp(x - max) / sum, or (x - max) - log(sum) with LOG. ROW4: n % 4 == 0 (rows read a texel at a time).
uniform sampler2D X;
#ifndef STATS
uniform sampler2D S;
#endif

#ifdef STATS
#define SCALAR
float compute(int i) {
  int n = uI[1], r = i >> 1, base = r * n;
  float m = -INF;
  bool nan = false;
#ifdef ROW4
  for (int j = 0; j < n; j += 4) {
    vec4 v = texel(X, (base + j) >> 2);
    nan = nan || isNaN(v.x) || isNaN(v.y) || isNaN(v.z) || isNaN(v.w);
    m = max(max(m, max(v.x, v.y)), max(v.z, v.w));
  }
#else
  for (int j = 0; j < n; j++) {
    float v = at(X, base + j);
    nan = nan || isNaN(v);
    m = max(m, v);
  }
#endif
  if (nan) return NAN;  // a NaN logit makes its whole row NaN
  if ((i & 1) == 0) return m;
  float s = 0.0;
#ifdef ROW4
  for (int j = 0; j < n; j += 4) {
    vec4 e = exp(texel(X, (base + j) >> 2) - m);
    s += e.x + e.y + e.z + e.w;
  }
#else
  for (int j = 0; j < n; j++) s += exp(at(X, base + j) - m);
#endif
  return isinf(m) && m > 0.0 ? NAN : s;  // inf - inf: the row is NaN (exp(NaN) is not NaN everywhere)
}
#else
float finish(float x, float m, float s) {
  if (isNaN(s) || isNaN(m) || isNaN(x - m)) return NAN;  // exp(NaN) is not NaN everywhere
#ifdef LOG
  return (x - m) - log(s);
#else
  return exp(x - m) / s;
#endif
}
#ifdef ROW4
vec4 compute4(int i) {
  int r = i / uI[1];
  vec4 x = texel(X, i >> 2), st = texel(S, r >> 1);
  vec2 ms = (r & 1) == 0 ? st.xy : st.zw;
  return vec4(finish(x.x, ms.x, ms.y), finish(x.y, ms.x, ms.y), finish(x.z, ms.x, ms.y), finish(x.w, ms.x, ms.y));
}
#else
#define SCALAR
float compute(int i) {
  int r = i / uI[1];
  return finish(at(X, i), at(S, 2 * r), at(S, 2 * r + 1));
}
#endif
#endif
