// Texel reads through the sampler, for the inner loops of the matmul and conv kernels. texture() at the
// texel's centre (nearest filtering, one level) returns the same texel as texelFetch; on SwiftShader (a
// CPU renderer) it costs less, and so does finding the row without a per-element variable shift (a
// scalar op per lane there): row = (t - column) / width is exact in float for any row below 2**24.
struct Tex {
  int mask;    // width - 1 (widths are powers of two)
  float invW;  // 1 / width
  vec2 inv;    // 1 / (width, height)
};

Tex texInfo(sampler2D s) {
  ivec2 size = textureSize(s, 0);
  return Tex(size.x - 1, 1.0 / float(size.x), 1.0 / vec2(size));
}

// texel t of a tensor texture described by info
vec4 sampled(sampler2D s, Tex info, int t) {
  int col = t & info.mask;
  return texture(s, (vec2(float(col), float(t - col) * info.invW) + 0.5) * info.inv);
}

// element i of a tensor texture described by info
float sampledAt(sampler2D s, Tex info, int i) {
  return sampled(s, info, i >> 2)[i & 3];
}
