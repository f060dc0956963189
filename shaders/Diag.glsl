// Diag: output [n, n] (x flattened to n elements); element (r, c) is x[r] on the diagonal, else 0.
// uI[1] = n.
uniform sampler2D X;

#define SCALAR
float compute(int i) {
  int n = uI[1];
  int r = i / n;
  return r == i % n ? at(X, r) : 0.0;
}
