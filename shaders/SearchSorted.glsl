// SearchSorted: for value (b, j), the first index of row b of the sorted sequence whose element is >= it
// (side left) or > it (side right, uI[3] = 1). uI[1] = sequence row length, uI[2] = values per row.
uniform sampler2D Q;
uniform sampler2D V;

#define SCALAR
float compute(int i) {
  int m = uI[1];
  int b = i / uI[2];
  float v = at(V, i);
  int lo = 0;
  int hi = m;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    float s = at(Q, b * m + mid);
    bool right = uI[3] == 1 ? s <= v : s < v;
    if (right) lo = mid + 1; else hi = mid;
  }
  return float(lo);
}
