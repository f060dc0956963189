#version 300 es
// Common header of every webtf kernel program (webgl backend). Python fills the double-brace holes.
// Tensors are flat: element i of a tensor is component (i & 3) of texel (i >> 2); texels fill rows of a
// power-of-two-wide RGBA float texture. uI holds the program's int parameters (uI[0] = log2 of the output
// texture's width), uF its float parameters.
precision highp float;
precision highp int;
precision highp sampler2D;

{{DEFINES}}
uniform int uI[{{NI}}];
{{UF}}
#ifdef MRT4
// four render targets (a kernel that writes 4 output texels per fragment, e.g. MatMulRows4)
layout(location = 0) out vec4 outColor;
layout(location = 1) out vec4 outColor1;
layout(location = 2) out vec4 outColor2;
layout(location = 3) out vec4 outColor3;
#else
out vec4 outColor;
#endif

const float NAN = intBitsToFloat(0x7fc00000);
const float INF = intBitsToFloat(0x7f800000);

// log2 of a tensor texture's power-of-two width
int widthShift(sampler2D s) {
  return (floatBitsToInt(float(textureSize(s, 0).x)) >> 23) - 127;
}

// texel t of a tensor texture
vec4 texel(sampler2D s, int t) {
  int sh = widthShift(s);
  return texelFetch(s, ivec2(t & ((1 << sh) - 1), t >> sh), 0);
}

// texel t of a texture whose width shift the caller computed once (inner loops)
vec4 texelSh(sampler2D s, int sh, int t) {
  return texelFetch(s, ivec2(t & ((1 << sh) - 1), t >> sh), 0);
}

// element i of a tensor texture
float at(sampler2D s, int i) {
  return texel(s, i >> 2)[i & 3];
}

// NaN test that survives compilers which assume no NaNs
bool isNaN(float v) {
  return !(v < 0.0 || 0.0 < v || v == 0.0);
}

// (flat index) -> coordinate along a dimension of size n whose elements are `stride` apart
int coord(int i, int stride, int n) {
  return (i / stride) % n;
}

// JS Math.round: ties toward +infinity
float jsRound(float v) {
  return floor(v + 0.5);
}
