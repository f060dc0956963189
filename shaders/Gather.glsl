// Strided gather: Transpose, Slice, StridedSlice, Reverse, Tile, PadV2, MirrorPad, DepthToSpace,
// SpaceToBatchND, BatchToSpaceND, Unpack, SplitV. Every output element reads one source element (or a
// constant): output coordinate c_d (output dims d < uI[1]) adds c_d * coef_d to source coordinate map_d,
// then each source dim s (< uI[2]) adds its offset, applies its boundary mode and contributes v * stride_s.
//   output dim d: size uI[3 + 3d], map uI[4 + 3d], coef uI[5 + 3d]
//   source dim s: at o = 3 + 3 * uI[1] + 4s: offset uI[o], size uI[o + 1], stride uI[o + 2], mode uI[o + 3]
//   modes (with BOUNDARY defined): 0 none, 1 tile (mod size), 2 pad (outside -> uF[0]), 3 reflect, 4 symmetric
// VEC: 4 consecutive outputs read 4 consecutive aligned source elements (checked by Python): one texel.
// ROW4 (no boundary modes, last output dim a multiple of 4): 4 consecutive outputs, one source index
// and fixed steps.
uniform sampler2D X;
//#include sampled

#define MAX_RANK 8

#ifndef BOUNDARY
// without boundary modes the map is linear: each output dim adds c_d * coef_d * stride(map_d), no local
// array (dynamically indexed local arrays are slow on software renderers)
int sourceIndex(int i) {
  int outRank = uI[1], srcRank = uI[2], o = 3 + 3 * outRank, src = 0;
  for (int s = 0; s < srcRank; s++) src += uI[o + 4 * s] * uI[o + 4 * s + 2];
  for (int d = outRank - 1; d >= 0; d--) {
    int n = uI[3 + 3 * d];
    src += (i % n) * uI[5 + 3 * d] * uI[o + 4 * uI[4 + 3 * d] + 2];
    i /= n;
  }
  return src;
}
#else
// coordinate v of a source dim of n elements after its boundary mode; -1: outside a pad
int bounded(int v, int n, int mode) {
  if (mode == 1) return v % n;
  if (mode == 2) return v < 0 || v >= n ? -1 : v;
  if (mode == 3) return v < 0 ? -v : v >= n ? 2 * n - 2 - v : v;
  if (mode == 4) return v < 0 ? -v - 1 : v >= n ? 2 * n - 1 - v : v;
  return v;
}

#ifdef DIAG
// output dim d reads source dim d with coefficient 1 (PadV2, MirrorPad, Tile: Python lists the source dims in
// output order, and sums the offsets of the dims no output dim reads into src0 = uI[3 + 7 * DIAG]); the
// rank is the compile-time DIAG, so the loop unrolls and every uniform index is a constant
int sourceIndex(int i) {
  int src = uI[3 + 7 * DIAG];
  for (int d = DIAG - 1; d >= 0; d--) {
    int n = uI[3 + 3 * d], q = i / n, so = 3 + 3 * DIAG + 4 * d;
    int v = bounded(i - q * n + uI[so], uI[so + 1], uI[so + 3]);
    if (v < 0) return -1;
    src += v * uI[so + 2];
    i = q;
  }
  return src;
}
#else
int sourceIndex(int i) {
  int outRank = uI[1], srcRank = uI[2];
  int c[MAX_RANK];
  for (int s = 0; s < MAX_RANK; s++) c[s] = 0;
  for (int d = outRank - 1; d >= 0; d--) {
    int n = uI[3 + 3 * d];
    c[uI[4 + 3 * d]] += (i % n) * uI[5 + 3 * d];
    i /= n;
  }
  int o = 3 + 3 * outRank, src = 0;
  for (int s = 0; s < srcRank; s++, o += 4) {
    int v = bounded(c[s] + uI[o], uI[o + 1], uI[o + 3]);
    if (v < 0) return -1;
    src += v * uI[o + 2];
  }
  return src;
}
#endif
#endif

#ifdef VEC
vec4 compute4(int i) {
  int s = sourceIndex(i);
  return s < 0 ? vec4(uF[0]) : sampled(X, texInfo(X), s >> 2);
}
#elif defined(ROW4)
// 4 consecutive outputs along the last output dim (its size a multiple of 4): one index, then fixed steps
vec4 compute4(int i) {
  int outRank = uI[1], s = sourceIndex(i);
  int step = uI[3 + 3 * outRank - 1] * uI[3 + 3 * outRank + 4 * uI[3 + 3 * outRank - 2] + 2];
  int sh = widthShift(X), s1 = s + step, s2 = s1 + step, s3 = s2 + step;
  return vec4(texelSh(X, sh, s >> 2)[s & 3], texelSh(X, sh, s1 >> 2)[s1 & 3], texelSh(X, sh, s2 >> 2)[s2 & 3],
              texelSh(X, sh, s3 >> 2)[s3 & 3]);
}
#else
// 4 outputs, each its own source element (read through the sampler: no per-lane variable shift)
vec4 compute4(int i) {
  Tex tX = texInfo(X);
  vec4 r;
  for (int j = 0; j < 4; j++) {
    int s = sourceIndex(i + j);
#ifdef BOUNDARY
    r[j] = s < 0 ? uF[0] : sampledAt(X, tX, s);
#else
    r[j] = sampledAt(X, tX, s);
#endif
  }
  return r;
}
#endif
