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
    int v = c[s] + uI[o];
    int n = uI[o + 1], mode = uI[o + 3];
    if (mode == 1) {
      v = v % n;
    } else if (mode == 2) {
      if (v < 0 || v >= n) return -1;
    } else if (mode == 3) {
      v = v < 0 ? -v : v >= n ? 2 * n - 2 - v : v;
    } else if (mode == 4) {
      v = v < 0 ? -v - 1 : v >= n ? 2 * n - 1 - v : v;
    }
    src += v * uI[o + 2];
  }
  return src;
}
#endif

#ifdef VEC
vec4 compute4(int i) {
  int s = sourceIndex(i);
  return s < 0 ? vec4(uF[0]) : texel(X, s >> 2);
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
#define SCALAR
float compute(int i) {
  int s = sourceIndex(i);
#ifdef BOUNDARY
  if (s < 0) return uF[0];
#endif
  return at(X, s);
}
#endif
