// BatchMatMul and _FusedMatMul: out[b, r, c] = sum_k A[b, r, k] * B[b, k, c] (+ bias, activation).
// uI[1] = m, uI[2] = k, uI[3] = n, uI[4] = A's batch count (1: broadcast), uI[5] = B's, uI[6] = bias size,
// uI[7] = prelu weights size. TA / TB: A or B stored transposed ([k, m] / [n, k]).
// VEC_N (n % 4 == 0): a fragment's 4 outputs are 4 columns of one row, so B is read a texel at a time;
// K4 (k % 4 == 0): rows of A (and of B when TB) are read a texel at a time along k.
uniform sampler2D A;
uniform sampler2D B;
//#include epilogue
//#include sampled

// A's and B's texture shapes, read once per fragment (textureSize in the inner loop is costly)
Tex tA, tB;

vec4 texA(int t) {
  return sampled(A, tA, t);
}

vec4 texB(int t) {
  return sampled(B, tB, t);
}

float atA(int i) {
  return texA(i >> 2)[i & 3];
}

float atB(int i) {
  return texB(i >> 2)[i & 3];
}

// A[r, kk..kk+3]
vec4 aRow4(int base, int r, int kk, int m, int k) {
#ifdef TA
  return vec4(atA(base + kk * m + r), atA(base + (kk + 1) * m + r), atA(base + (kk + 2) * m + r),
              atA(base + (kk + 3) * m + r));
#else
#ifdef K4
  return texA((base + r * k + kk) >> 2);
#else
  int o = base + r * k + kk;
  return vec4(atA(o), atA(o + 1), atA(o + 2), atA(o + 3));
#endif
#endif
}

float aAt(int base, int r, int kk, int m, int k) {
#ifdef TA
  return atA(base + kk * m + r);
#else
  return atA(base + r * k + kk);
#endif
}

// B[kk..kk+3, c]
vec4 bCol4(int base, int kk, int c, int k, int n) {
#ifdef TB
#ifdef K4
  return texB((base + c * k + kk) >> 2);
#else
  int o = base + c * k + kk;
  return vec4(atB(o), atB(o + 1), atB(o + 2), atB(o + 3));
#endif
#else
  return vec4(atB(base + kk * n + c), atB(base + (kk + 1) * n + c), atB(base + (kk + 2) * n + c),
              atB(base + (kk + 3) * n + c));
#endif
}

float bAt(int base, int kk, int c, int k, int n) {
#ifdef TB
  return atB(base + c * k + kk);
#else
  return atB(base + kk * n + c);
#endif
}

#ifdef VEC_N
vec4 compute4(int i) {
  int m = uI[1], k = uI[2], n = uI[3];
  int c = i % n, q = i / n, r = q % m, bi = q / m;
  int aBase = (uI[4] == 1 ? 0 : bi) * m * k, bBase = (uI[5] == 1 ? 0 : bi) * k * n;
  tA = texInfo(A);
  tB = texInfo(B);
  vec4 acc = vec4(0.0);
  int k4 = k - (k & 3);
#if !defined(TA) && !defined(TB) && defined(K4)
  // A's row and B's 4-row block advance by whole texels: A one texel, B k rows (n / 4 texels each)
  int ta = (aBase + r * k) >> 2, tb = (bBase + c) >> 2, n4 = n >> 2;
  for (int kk = 0; kk < k4; kk += 4, ta++, tb += n) {
    acc += mat4(texB(tb), texB(tb + n4), texB(tb + 2 * n4),
                texB(tb + 3 * n4)) * texA(ta);
  }
#else
  for (int kk = 0; kk < k4; kk += 4) {
    vec4 a = aRow4(aBase, r, kk, m, k);
#ifdef TB
    acc += a * mat4(bCol4(bBase, kk, c, k, n), bCol4(bBase, kk, c + 1, k, n), bCol4(bBase, kk, c + 2, k, n),
                    bCol4(bBase, kk, c + 3, k, n));
#else
    int o = bBase + kk * n + c;
    acc += mat4(texB(o >> 2), texB((o + n) >> 2), texB((o + 2 * n) >> 2),
                texB((o + 3 * n) >> 2)) * a;
#endif
  }
#endif
  for (int kk = k4; kk < k; kk++) {
    float a = aAt(aBase, r, kk, m, k);
#ifdef TB
    acc += a * vec4(bAt(bBase, kk, c, k, n), bAt(bBase, kk, c + 1, k, n), bAt(bBase, kk, c + 2, k, n),
                    bAt(bBase, kk, c + 3, k, n));
#else
    acc += a * texB((bBase + kk * n + c) >> 2);
#endif
  }
  return epilogue4(acc, i, uI[6], uI[7]);
}
#else
#define SCALAR
float compute(int i) {
  int m = uI[1], k = uI[2], n = uI[3];
  int c = i % n, q = i / n, r = q % m, bi = q / m;
  int aBase = (uI[4] == 1 ? 0 : bi) * m * k, bBase = (uI[5] == 1 ? 0 : bi) * k * n;
  tA = texInfo(A);
  tB = texInfo(B);
  float acc = 0.0;
  int k4 = k - (k & 3);
  for (int kk = 0; kk < k4; kk += 4) {
    acc += dot(aRow4(aBase, r, kk, m, k), bCol4(bBase, kk, c, k, n));
  }
  for (int kk = k4; kk < k; kk++) {
    acc += aAt(aBase, r, kk, m, k) * bAt(bBase, kk, c, k, n);
  }
  return epilogue1(acc, i, uI[6], uI[7]);
}
#endif
