// Element-wise binary kernels with broadcasting (Add, Sub, Mul, RealDiv, ..., comparisons, logical ops,
// Prelu) and Select. OP_<Kernel> picks the function; INT is defined for int32 inputs.
// How each operand is read (A_MODE, B_MODE; C_MODE for Select's condition):
//   0 full: same size as the output; 1 scalar; 2 suffix: element i % n (n = uI[1], uI[2] or uI[3]),
//   3 general: strided through the broadcast shape (rank uI[4], dims uI[5..], strides after them).
uniform sampler2D A;
uniform sampler2D B;
#ifdef OP_Select
uniform sampler2D C;
#endif

// ---- the operations ---------------------------------------------------------------------------------
float divide(float a, float b) {
  if (b == 0.0) return a == 0.0 || isNaN(a) ? NAN : (a > 0.0) == (floatBitsToInt(b) >= 0) ? INF : -INF;
  return a / b;
}

#if defined(OP_Add)
float binary(float a, float b) { return a + b; }
#elif defined(OP_Sub)
float binary(float a, float b) { return a - b; }
#elif defined(OP_Multiply)
float binary(float a, float b) { return a * b; }
#elif defined(OP_RealDiv)
float binary(float a, float b) { return divide(a, b); }
#elif defined(OP_FloorDiv)
#ifdef INT
float binary(float a, float b) {
  int ia = int(a), ib = int(b);
  if (ib == 0) return 0.0;
  int q = ia / ib;
  if ((ia % ib != 0) && ((ia < 0) != (ib < 0))) q -= 1;
  return float(q);
}
#else
float binary(float a, float b) { return floor(divide(a, b)); }
#endif
#elif defined(OP_Mod)
#ifdef INT
float binary(float a, float b) {
  int ia = int(a), ib = int(b);
  if (ib == 0) return 0.0;
  int r = ia - (ia / ib) * ib;
  if (r != 0 && ((r < 0) != (ib < 0))) r += ib;
  return float(r);
}
#else
float binary(float a, float b) {
  // JS: the remainder a % b (sign of a), moved to the sign of b when the signs differ
  if (b == 0.0 || isinf(a) || isNaN(a) || isNaN(b)) return NAN;
  if (isinf(b)) return (a >= 0.0) == (b >= 0.0) ? a : NAN;
  float r = a - b * trunc(a / b);
  if (abs(r) >= abs(b)) r -= b * sign(r) * sign(b);  // trunc(a / b) off by one in float
  if (r != 0.0 && (r < 0.0) != (b < 0.0)) r += b;
  return r;
}
#endif
#elif defined(OP_Pow)
// JS Math.pow
float binary(float a, float b) {
  if (b == 0.0) return 1.0;
  if (isNaN(a) || isNaN(b) || (isinf(b) && abs(a) == 1.0)) return NAN;
  bool oddInt = floor(b) == b && !isinf(b) && mod(b, 2.0) == 1.0;
  if (a == 0.0) {
    bool negZero = floatBitsToInt(a) < 0;
    if (b < 0.0) return oddInt && negZero ? -INF : INF;
    return oddInt && negZero ? -0.0 : 0.0;
  }
  if (a < 0.0 && floor(b) != b) return NAN;
  float p = exp2(b * log2(abs(a)));
#ifdef INT_OUTPUT
  p = round(p);  // exp2/log2 are not exact: integer powers must come out whole
#endif
  return a < 0.0 && oddInt ? -p : p;
}
#elif defined(OP_SquaredDifference)
float binary(float a, float b) { return (a - b) * (a - b); }
#elif defined(OP_Maximum)
float binary(float a, float b) { return isNaN(a) ? a : isNaN(b) ? b : max(a, b); }
#elif defined(OP_Minimum)
float binary(float a, float b) { return isNaN(a) ? a : isNaN(b) ? b : min(a, b); }
#elif defined(OP_Atan2)
float binary(float a, float b) {
  if (isNaN(a) || isNaN(b)) return NAN;
  if (b == 0.0) return a > 0.0 ? 1.5707963267948966 : a < 0.0 ? -1.5707963267948966 :
                       (floatBitsToInt(b) < 0 ? (floatBitsToInt(a) < 0 ? -3.141592653589793 : 3.141592653589793)
                                               : a);
  return atan(a, b);
}
#elif defined(OP_Equal)
float binary(float a, float b) { return a == b ? 1.0 : 0.0; }
#elif defined(OP_NotEqual)
float binary(float a, float b) { return a != b ? 1.0 : 0.0; }
#elif defined(OP_Less)
float binary(float a, float b) { return a < b ? 1.0 : 0.0; }
#elif defined(OP_LessEqual)
float binary(float a, float b) { return a <= b ? 1.0 : 0.0; }
#elif defined(OP_Greater)
float binary(float a, float b) { return a > b ? 1.0 : 0.0; }
#elif defined(OP_GreaterEqual)
float binary(float a, float b) { return a >= b ? 1.0 : 0.0; }
#elif defined(OP_LogicalAnd)
float binary(float a, float b) { return a != 0.0 && b != 0.0 ? 1.0 : 0.0; }
#elif defined(OP_LogicalOr)
float binary(float a, float b) { return a != 0.0 || b != 0.0 ? 1.0 : 0.0; }
#elif defined(OP_Prelu)
float binary(float a, float b) { return a < 0.0 ? b * a : a; }
#elif defined(OP_EluGrad)
float binary(float a, float b) { return b >= 0.0 ? a : a * (b + 1.0); }  // a = dy, b = Elu's output
#endif

// ---- operand fetch ----------------------------------------------------------------------------------
int broadcastIndex(int i, int strides) {
  int rank = uI[4], idx = 0;
  for (int d = rank - 1; d >= 0; d--) {
    int n = uI[5 + d];
    idx += (i % n) * uI[strides + d];
    i /= n;
  }
  return idx;
}

vec4 fetch4(sampler2D s, int mode, int n, int strides, int i) {
  if (mode == 0) return texel(s, i >> 2);
  if (mode == 1) return vec4(at(s, 0));
  if (mode == 2) {
    int j = i % n;
    if ((n & 3) == 0) return texel(s, j >> 2);
    return vec4(at(s, j), at(s, (i + 1) % n), at(s, (i + 2) % n), at(s, (i + 3) % n));
  }
  return vec4(at(s, broadcastIndex(i, strides)), at(s, broadcastIndex(i + 1, strides)),
              at(s, broadcastIndex(i + 2, strides)), at(s, broadcastIndex(i + 3, strides)));
}

vec4 compute4(int i) {
  int rank = uI[4];
  vec4 a = fetch4(A, A_MODE, uI[1], 5 + rank, i);
  vec4 b = fetch4(B, B_MODE, uI[2], 5 + 2 * rank, i);
#ifdef OP_Select
  vec4 c = fetch4(C, C_MODE, uI[3], 5 + 3 * rank, i);
  return vec4(c.x != 0.0 ? a.x : b.x, c.y != 0.0 ? a.y : b.y, c.z != 0.0 ? a.z : b.z, c.w != 0.0 ? a.w : b.w);
#else
  return vec4(binary(a.x, b.x), binary(a.y, b.y), binary(a.z, b.z), binary(a.w, b.w));
#endif
}
