// Cumsum (OP_SUM) and Cumprod (OP_PROD) along an axis: the input is seen as [outer, n, inner];
// out[o, j, k] combines x[o, t, k] for t <= j (t < j when exclusive; t >= j / t > j when reversed).
// uI[1] = n, uI[2] = inner, uI[3] = exclusive, uI[4] = reverse.
uniform sampler2D X;

#define SCALAR
float compute(int i) {
  int n = uI[1], inner = uI[2];
  int k = i % inner, q = i / inner;
  int j = q % n, o = q / n;
  int lo, hi;
  if (uI[4] == 1) {
    lo = uI[3] == 1 ? j + 1 : j;
    hi = n;
  } else {
    lo = 0;
    hi = uI[3] == 1 ? j : j + 1;
  }
#ifdef OP_PROD
  float acc = 1.0;
  for (int t = lo; t < hi; t++) acc *= at(X, (o * n + t) * inner + k);
#else
  float acc = 0.0;
  for (int t = lo; t < hi; t++) acc += at(X, (o * n + t) * inner + k);
#endif
  return acc;
}
