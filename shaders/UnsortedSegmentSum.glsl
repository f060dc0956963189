// UnsortedSegmentSum: out[s, k] = sum of x[r, k] over the rows r whose segment id is s.
// uI[1] = rows of x, uI[2] = row size.
uniform sampler2D X;
uniform sampler2D S;

#define SCALAR
float compute(int i) {
  int size = uI[2];
  int seg = i / size;
  int k = i % size;
  float total = 0.0;
  for (int r = 0; r < uI[1]; r++) {
    if (int(at(S, r)) == seg) total += at(X, r * size + k);
  }
  return total;
}
