// Element-wise unary kernels (and Cast, ClipByValue, LeakyRelu, Step, Fill): out[i] = unary(x[i]).
// Python defines OP_<Kernel> to pick the function; uF holds the float attrs (alpha, clip bounds, value).
// NaN in -> NaN out wherever TF.js gives NaN (comparisons with NaN are false, so most forms keep it).
#ifndef OP_Fill
uniform sampler2D X;
#endif

float expm1Accurate(float x) {
  return abs(x) < 1e-3 ? x + 0.5 * x * x + x * x * x / 6.0 : exp(x) - 1.0;
}

// sin(x), cos(x) within a few ulp: Cody-Waite reduction by pi/2, then Taylor polynomials on [-pi/4, pi/4]
// (SwiftShader's builtins are ~1e-4 off)
vec2 sinCos(float x) {
  float q = roundEven(x * 0.63661977236758134);
  float r = (x - q * 1.5707963705062866) + q * 4.3711390001862428e-8;
  float r2 = r * r;
  float s = r + r * r2 * (-1.0 / 6.0 + r2 * (1.0 / 120.0 + r2 * (-1.0 / 5040.0 + r2 * (1.0 / 362880.0))));
  float c = 1.0 + r2 * (-0.5 + r2 * (1.0 / 24.0 + r2 * (-1.0 / 720.0 + r2 * (1.0 / 40320.0 + r2 * (-1.0 / 3628800.0)))));
  int quadrant = int(mod(q, 4.0));
  if (quadrant == 0) return vec2(s, c);
  if (quadrant == 1) return vec2(c, -s);
  if (quadrant == 2) return vec2(-s, -c);
  return vec2(-c, s);
}

float log1pAccurate(float x) {
  if (x < -1.0) return NAN;
  if (x == -1.0) return -INF;
  return abs(x) < 1e-3 ? x - 0.5 * x * x + x * x * x / 3.0 : log(1.0 + x);
}

#if defined(OP_Abs)
float unary(float x) { return abs(x); }
#elif defined(OP_Neg)
float unary(float x) { return -x; }
#elif defined(OP_Exp)
float unary(float x) { return exp(x); }
#elif defined(OP_Expm1)
float unary(float x) { return expm1Accurate(x); }
#elif defined(OP_Log)
float unary(float x) { return x < 0.0 ? NAN : x == 0.0 ? -INF : log(x); }
#elif defined(OP_Log1p)
float unary(float x) { return log1pAccurate(x); }
#elif defined(OP_Sqrt)
float unary(float x) { return x < 0.0 ? NAN : sqrt(x); }
#elif defined(OP_Rsqrt)
float unary(float x) { return x < 0.0 ? NAN : x == 0.0 ? INF : inversesqrt(x); }
#elif defined(OP_Square)
float unary(float x) { return x * x; }
#elif defined(OP_Reciprocal)
float unary(float x) { return x == 0.0 ? (floatBitsToInt(x) < 0 ? -INF : INF) : 1.0 / x; }
#elif defined(OP_Relu)
float unary(float x) { return x < 0.0 ? 0.0 : x; }
#elif defined(OP_Relu6)
float unary(float x) { return x < 0.0 ? 0.0 : x > 6.0 ? 6.0 : x; }
#elif defined(OP_Elu)
float unary(float x) { return x >= 0.0 ? x : expm1Accurate(x); }
#elif defined(OP_Selu)
float unary(float x) {
  return x >= 0.0 ? 1.0507009873554805 * x : 1.0507009873554805 * 1.6732632423543772 * expm1Accurate(x);
}
#elif defined(OP_Sigmoid)
float unary(float x) { return 1.0 / (1.0 + exp(-x)); }
#elif defined(OP_Tanh)
float unary(float x) {
  if (isNaN(x)) return x;
  float e = exp(-2.0 * abs(x));
  return sign(x) * (1.0 - e) / (1.0 + e);
}
#elif defined(OP_Softplus)
float unary(float x) { return isNaN(x) ? x : max(x, 0.0) + log1pAccurate(exp(-abs(x))); }
#elif defined(OP_Sin)
float unary(float x) { return isinf(x) ? NAN : sinCos(x).x; }
#elif defined(OP_Cos)
float unary(float x) { return isinf(x) ? NAN : sinCos(x).y; }
#elif defined(OP_Tan)
float unary(float x) {
  if (isinf(x)) return NAN;
  vec2 sc = sinCos(x);
  return sc.x / sc.y;
}
#elif defined(OP_Asin)
float unary(float x) { return abs(x) > 1.0 ? NAN : atan(x, sqrt((1.0 - x) * (1.0 + x))); }
#elif defined(OP_Acos)
float unary(float x) { return abs(x) > 1.0 ? NAN : atan(sqrt((1.0 - x) * (1.0 + x)), x); }
#elif defined(OP_Atan)
float unary(float x) { return atan(x); }
#elif defined(OP_Sinh)
float unary(float x) { return 0.5 * (exp(x) - exp(-x)); }
#elif defined(OP_Cosh)
float unary(float x) { return 0.5 * (exp(x) + exp(-x)); }
#elif defined(OP_Acosh)
float unary(float x) { return x < 1.0 ? NAN : isinf(x) ? x : log(x + sqrt(x * x - 1.0)); }
#elif defined(OP_Asinh)
float unary(float x) {
  if (isinf(x) || isNaN(x)) return x;
  float a = abs(x);  // log1p form: exact near 0, no cancellation for x < 0
  return sign(x) * log1pAccurate(a + a * a / (1.0 + sqrt(1.0 + a * a)));
}
#elif defined(OP_Atanh)
float unary(float x) {
  if (abs(x) > 1.0) return NAN;
  if (abs(x) == 1.0) return sign(x) * INF;
  return 0.5 * (log1pAccurate(x) - log1pAccurate(-x));
}
#elif defined(OP_Floor)
float unary(float x) { return floor(x); }
#elif defined(OP_Ceil)
float unary(float x) { return ceil(x); }
#elif defined(OP_Round)
float unary(float x) { return roundEven(x); }
#elif defined(OP_Sign)
float unary(float x) { return isNaN(x) ? 0.0 : sign(x); }
#elif defined(OP_Erf)
float unary(float x) {
  // Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7)
  float s = sign(x), a = abs(x);
  float t = 1.0 / (1.0 + 0.3275911 * a);
  float y = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  return s * (1.0 - y * exp(-a * a));
}
#elif defined(OP_IsNan)
float unary(float x) { return isNaN(x) ? 1.0 : 0.0; }
#elif defined(OP_IsInf)
float unary(float x) { return isinf(x) ? 1.0 : 0.0; }
#elif defined(OP_IsFinite)
float unary(float x) { return isNaN(x) || isinf(x) ? 0.0 : 1.0; }
#elif defined(OP_LogicalNot)
float unary(float x) { return x == 0.0 ? 1.0 : 0.0; }
#elif defined(OP_Step)
float unary(float x) { return isNaN(x) ? x : x > 0.0 ? 1.0 : uF[0]; }
#elif defined(OP_LeakyRelu)
float unary(float x) { return x < 0.0 ? uF[0] * x : x; }
#elif defined(OP_ClipByValue)
float unary(float x) { return isNaN(x) ? x : clamp(x, uF[0], uF[1]); }
#elif defined(OP_CastInt)
// as an Int32Array stores it (TF.js's cpu cast): NaN and +-inf give 0, values past int32 wrap around
float unary(float x) {
  if (isNaN(x) || isinf(x)) return 0.0;
  float t = trunc(x);
  if (abs(t) < 2147483648.0) return t;
  float r = mod(t, 4294967296.0);
  return r >= 2147483648.0 ? r - 4294967296.0 : r;
}
#elif defined(OP_CastBool)
float unary(float x) { return x != 0.0 ? 1.0 : 0.0; }
#elif defined(OP_Identity)
float unary(float x) { return x; }
#elif defined(OP_Fill)
float unary(float x) { return uF[0]; }
#endif

// NaN in -> NaN out, except for the ops that look at NaN themselves
#if defined(OP_IsNan) || defined(OP_IsInf) || defined(OP_IsFinite) || defined(OP_LogicalNot) || \
    defined(OP_Sign) || defined(OP_CastBool) || defined(OP_CastInt) || defined(OP_Fill)
float op(float x) { return unary(x); }
#else
float op(float x) { return isNaN(x) ? x : unary(x); }
#endif

vec4 compute4(int i) {
#ifdef OP_Fill
  return vec4(uF[0]);
#else
  vec4 v = texel(X, i >> 2);
  return vec4(op(v.x), op(v.y), op(v.z), op(v.w));
#endif
}
