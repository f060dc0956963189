// GatherNd: indices [n, depth] pick slices of params; output [n, slice]. uI[1] = depth, uI[2] = slice,
// uI[3 + j] = stride of index dim j (in slices), uI[3 + depth + j] = size of params dim j.
// Indices out of range read 0.
uniform sampler2D X;
uniform sampler2D I;

#define SCALAR
float compute(int i) {
  int depth = uI[1], slice = uI[2];
  int k = i / slice, s = i % slice, off = 0;
  for (int j = 0; j < depth; j++) {
    int v = int(at(I, k * depth + j));
    if (v < 0 || v >= uI[3 + depth + j]) return 0.0;
    off += v * uI[3 + j];
  }
  return at(X, off * slice + s);
}
