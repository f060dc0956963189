// Reductions Sum, Mean, Prod, Max, Min, All, Any, ArgMax, ArgMin (OP_SUM, ...). The input is seen as
// [outer, n, inner] (the reduced dims contiguous in the middle); the output as [outer, chunks, inner]:
// chunk c reduces j in [c * size, min(n, (c + 1) * size)) (a long reduction runs as two passes).
// uI[1] = n, uI[2] = inner, uI[3] = chunks, uI[4] = chunk size; uF[0] scales the result (Mean: 1 / n).
// Max/Min: NaN wins. ArgMax/ArgMin: the first extreme; NaN is skipped unless it comes first.
// VEC (inner % 4 == 0): 4 neighbouring outputs per fragment; ROW4 (inner == 1, n and size % 4 == 0):
// rows read a texel at a time.
uniform sampler2D X;

#if defined(OP_SUM) || defined(OP_MEAN)
#define INIT 0.0
float combine(float acc, float v) { return acc + v; }
#elif defined(OP_PROD)
#define INIT 1.0
float combine(float acc, float v) { return acc * v; }
#elif defined(OP_MAX)
#define INIT (-INF)
float combine(float acc, float v) { return isNaN(v) || v > acc ? v : acc; }
#elif defined(OP_MIN)
#define INIT INF
float combine(float acc, float v) { return isNaN(v) || v < acc ? v : acc; }
#elif defined(OP_ALL)
#define INIT 1.0
float combine(float acc, float v) { return acc != 0.0 && v != 0.0 ? 1.0 : 0.0; }
#elif defined(OP_ANY)
#define INIT 0.0
float combine(float acc, float v) { return acc != 0.0 || v != 0.0 ? 1.0 : 0.0; }
#elif defined(OP_ARGMAX)
bool better(float v, float best) { return v > best; }
#elif defined(OP_ARGMIN)
bool better(float v, float best) { return v < best; }
#endif

#if defined(OP_ARGMAX) || defined(OP_ARGMIN)
#define SCALAR
float compute(int i) {
  int n = uI[1], inner = uI[2];
  int k = i % inner, o = i / inner;
  int base = o * n * inner + k;
  float best = at(X, base);
  int arg = 0;
#ifdef ROW4
  for (int j = 0; j < n; j += 4) {
    vec4 v = texel(X, (base + j) >> 2);
    if (better(v.x, best)) { best = v.x; arg = j; }
    if (better(v.y, best)) { best = v.y; arg = j + 1; }
    if (better(v.z, best)) { best = v.z; arg = j + 2; }
    if (better(v.w, best)) { best = v.w; arg = j + 3; }
  }
#else
  for (int j = 1; j < n; j++) {
    float v = at(X, base + j * inner);
    if (better(v, best)) { best = v; arg = j; }
  }
#endif
  return float(arg);
}
#elif defined(VEC)
vec4 compute4(int i) {
  int n = uI[1], inner = uI[2], chunks = uI[3], size = uI[4];
  int k = i % inner, q = i / inner;
  int c = q % chunks, o = q / chunks;
  int start = c * size, stop = min(n, start + size);
  vec4 acc = vec4(INIT);
  for (int j = start; j < stop; j++) {
    vec4 v = texel(X, ((o * n + j) * inner + k) >> 2);
    acc = vec4(combine(acc.x, v.x), combine(acc.y, v.y), combine(acc.z, v.z), combine(acc.w, v.w));
  }
  return acc * uF[0];
}
#else
#define SCALAR
float compute(int i) {
  int n = uI[1], inner = uI[2], chunks = uI[3], size = uI[4];
  int k = i % inner, q = i / inner;
  int c = q % chunks, o = q / chunks;
  int start = c * size, stop = min(n, start + size);
  float acc = INIT;
#ifdef ROW4
  int base = o * n;
  for (int j = start; j < stop; j += 4) {
    vec4 v = texel(X, (base + j) >> 2);
    acc = combine(combine(combine(combine(acc, v.x), v.y), v.z), v.w);
  }
#else
  for (int j = start; j < stop; j++) {
    acc = combine(acc, at(X, (o * n + j) * inner + k));
  }
#endif
  return acc * uF[0];
}
#endif
