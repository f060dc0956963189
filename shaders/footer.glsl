// Common tail of every webtf kernel program: one fragment = one output texel = 4 consecutive elements.
// A kernel defines `vec4 compute4(int i)` (elements i..i+3), or `float compute(int i)` plus #define SCALAR,
// or its own main() plus #define OWN_MAIN.
#ifdef SCALAR
vec4 compute4(int i) {
  return vec4(compute(i), compute(i + 1), compute(i + 2), compute(i + 3));
}
#endif

#ifndef OWN_MAIN
void main() {
  ivec2 fc = ivec2(gl_FragCoord.xy);
  vec4 r = compute4(((fc.y << uI[0]) + fc.x) << 2);
#ifdef INT_OUTPUT
  // int32 results: truncated toward zero; NaN and infinities store as 0 (like an Int32Array)
  r = trunc(r);
  r = mix(r, vec4(0.0), bvec4(isNaN(r.x) || isinf(r.x), isNaN(r.y) || isinf(r.y), isNaN(r.z) || isinf(r.z),
                              isNaN(r.w) || isinf(r.w)));
#endif
#ifdef HALF_OUTPUT
  // half-float textures: results beyond the half range (infinities too) are clamped to +-65504, since
  // renderers may store an out-of-range value as NaN; NaN stays NaN
  r = mix(r, sign(r) * 65504.0, greaterThan(abs(r), vec4(65504.0)));
#endif
  outColor = r;
}
#endif
