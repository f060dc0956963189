// Conv2D and FusedConv2D with out channels % 4 == 0 (NHWC), four horizontally adjacent output pixels per
// fragment into four render targets (MRT4), laid out as DepthwiseConv2dX4's: fragment t computes channels
// 4g..4g+3 of pixels 4x..4x+3 of output row (b, oy), pixel 4x + j going to target j (Merge4 interleaves
// them). The 4 pixels share each filter texel: per tap and 4 input channels (CI4) 4 filter and 4 input
// texels for 64 multiply-adds, where one pixel per fragment reads 5 for 16; without CI4, per input channel
// one filter texel and 4 input elements for 16. Pixels past ow are computed from zero padding, never merged.
// uI[1..16]: h, w, ci, oh, ow, co, fh, fw, sh, sw, dh, dw, pt, pl, bias size, prelu size.
#define OWN_MAIN
uniform sampler2D X;
uniform sampler2D F;
//#include epilogue
//#include sampled
//#include pixels4

void main() {
  int h = uI[1], w = uI[2], ci = uI[3], oh = uI[4], ow = uI[5], co = uI[6];
  int fh = uI[7], fw = uI[8], sh = uI[9], sw = uI[10], dh = uI[11], dw = uI[12];
  int cq = co >> 2, b, oy, ox, g;
  pixels4(cq, oh, ow, b, oy, ox, g);
  Tex tX = texInfo(X), tF = texInfo(F);
  vec4 acc0 = vec4(0.0), acc1 = vec4(0.0), acc2 = vec4(0.0), acc3 = vec4(0.0);
  for (int r = 0; r < fh; r++) {
    int iy = oy * sh - uI[13] + r * dh;
    if (iy < 0 || iy >= h) continue;
    int row = (b * h + iy) * w;
    for (int s = 0; s < fw; s++) {
      // pixel j reads input column ix + j * sw; columns outside the row add nothing
      int ix = ox * sw - uI[14] + s * dw;
      bool v0 = ix >= 0 && ix < w, v1 = ix + sw >= 0 && ix + sw < w, v2 = ix + 2 * sw >= 0 && ix + 2 * sw < w,
           v3 = ix + 3 * sw >= 0 && ix + 3 * sw < w;
      if (!(v0 || v1 || v2 || v3)) continue;
      int tf = (r * fw + s) * ci * cq + g;
#ifdef CI4
      int tx = ((row + ix) * ci) >> 2, step = (sw * ci) >> 2;
      for (int c = 0; c < ci; c += 4, tx++, tf += 4 * cq) {
        mat4 f = mat4(sampled(F, tF, tf), sampled(F, tF, tf + cq), sampled(F, tF, tf + 2 * cq),
                      sampled(F, tF, tf + 3 * cq));
        acc0 += v0 ? f * sampled(X, tX, tx) : vec4(0.0);
        acc1 += v1 ? f * sampled(X, tX, tx + step) : vec4(0.0);
        acc2 += v2 ? f * sampled(X, tX, tx + 2 * step) : vec4(0.0);
        acc3 += v3 ? f * sampled(X, tX, tx + 3 * step) : vec4(0.0);
      }
#else
      int e = (row + ix) * ci, step = sw * ci;
      for (int c = 0; c < ci; c++, e++, tf += cq) {
        vec4 f = sampled(F, tF, tf);
        acc0 += v0 ? f * sampledAt(X, tX, e) : vec4(0.0);
        acc1 += v1 ? f * sampledAt(X, tX, e + step) : vec4(0.0);
        acc2 += v2 ? f * sampledAt(X, tX, e + 2 * step) : vec4(0.0);
        acc3 += v3 ? f * sampledAt(X, tX, e + 3 * step) : vec4(0.0);
      }
#endif
    }
  }
  store4(acc0, acc1, acc2, acc3, b, oy, ox, g, oh, ow, co, uI[15], uI[16]);
}
