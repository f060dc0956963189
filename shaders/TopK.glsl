// TopK on the GPU (rows whose last dimension n reaches TOPK_LAST_DIM_CPU_HANDOFF_SIZE_THRESHOLD): rounds of
// "keep the k best of each chunk of S = 2k candidates" until one chunk is left. A candidate is an index into
// its row of X (-1: none); element a beats b when b is none, or a's value is larger (NaN above every number),
// or the values are equal and a's index is lower (the cpu kernel's stable descending order).
// uI[1..7]: n, m (candidates per row), S, mp (m rounded up to chunks), first (candidates are 0..n-1 and C
// is unused), k, number of chunks.
// RANK: [rows, mp] -> how many of its chunk beat each candidate (S for none).
// SELECT: [rows, chunks, k] -> per chunk the candidate of rank 0..k-1 (R holds the ranks).
// VALUES: [rows, k] -> X's value at each final candidate.
uniform sampler2D X;
uniform sampler2D C;
#ifdef SELECT
uniform sampler2D R;
#endif

float candidate(int row, int pos) {
  int n = uI[1], m = uI[2];
  if (pos >= m) return -1.0;
  return uI[5] == 1 ? float(pos) : at(C, row * m + pos);
}

bool beats(int row, float a, float b) {
  if (a < 0.0) return false;
  if (b < 0.0) return true;
  int n = uI[1];
  float va = at(X, row * n + int(a)), vb = at(X, row * n + int(b));
  bool na = isNaN(va), nb = isNaN(vb);
  if (na || nb) return na && (!nb || a < b);
  return va > vb || (va == vb && a < b);
}

#define SCALAR
float compute(int i) {
  int s = uI[3], mp = uI[4], k = uI[6];
#ifdef RANK
  int row = i / mp, p = i % mp, start = p - p % s;
  float me = candidate(row, p);
  if (me < 0.0) return float(s);
  int rank = 0;
  for (int j = 0; j < s; j++) {
    if (beats(row, candidate(row, start + j), me)) rank++;
  }
  return float(rank);
#endif
#ifdef SELECT
  int chunks = uI[7];
  int slot = i % k, c = (i / k) % chunks, row = i / (k * chunks);
  float want = float(slot);
  for (int j = 0; j < s; j++) {
    if (at(R, row * mp + c * s + j) == want) return candidate(row, c * s + j);
  }
  return -1.0;
#endif
#ifdef VALUES
  int row = i / k;
  return at(X, row * uI[1] + int(at(C, i)));
#endif
}
