// The fused-op tail shared by _FusedMatMul, FusedConv2D and FusedDepthwiseConv2D: add a bias, then apply an
// activation. Bias and prelu weights are read as element (i % n) of their flat values (n = their size:
// a scalar, per-channel weights, or any shape that is a suffix of the output's). ACT_<NAME> picks the
// activation; uF[0] is the leakyrelu alpha.
#ifdef BIAS
uniform sampler2D Bias;
#endif
#ifdef PRELU
uniform sampler2D Alpha;
#endif

float activate(float x, float w) {
#if defined(ACT_RELU)
  return x < 0.0 ? 0.0 : x;
#elif defined(ACT_RELU6)
  return x < 0.0 ? 0.0 : x > 6.0 ? 6.0 : x;
#elif defined(ACT_ELU)
  return x >= 0.0 ? x : (abs(x) < 1e-3 ? x + 0.5 * x * x : exp(x) - 1.0);
#elif defined(ACT_LEAKYRELU)
  return x < 0.0 ? uF[0] * x : x;
#elif defined(ACT_SIGMOID)
  return 1.0 / (1.0 + exp(-x));
#elif defined(ACT_PRELU)
  return x < 0.0 ? w * x : x;
#else
  return x;
#endif
}

// elements i..i+3 of a tensor of n elements repeated along the output
vec4 repeated4(sampler2D s, int i, int n) {
  if (n == 1) return vec4(at(s, 0));
  int j = i % n;
  if ((n & 3) == 0) return texel(s, j >> 2);
  return vec4(at(s, j), at(s, (i + 1) % n), at(s, (i + 2) % n), at(s, (i + 3) % n));
}

// bias + activation of the 4 outputs i..i+3; nBias and nPrelu are the sizes of the bias and the weights
vec4 epilogue4(vec4 r, int i, int nBias, int nPrelu) {
#ifdef BIAS
  r += repeated4(Bias, i, nBias);
#endif
#ifdef PRELU
  vec4 w = repeated4(Alpha, i, nPrelu);
#else
  vec4 w = vec4(0.0);
#endif
  return vec4(activate(r.x, w.x), activate(r.y, w.y), activate(r.z, w.z), activate(r.w, w.w));
}

// the same for one output i
float epilogue1(float r, int i, int nBias, int nPrelu) {
#ifdef BIAS
  r += at(Bias, i % nBias);
#endif
#ifdef PRELU
  float w = at(Alpha, i % nPrelu);
#else
  float w = 0.0;
#endif
  return activate(r, w);
}
