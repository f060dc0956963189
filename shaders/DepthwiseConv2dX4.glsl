// DepthwiseConv2dNative and FusedDepthwiseConv2D with multiplier 1 and channels % 4 == 0 (NHWC), four
// horizontally adjacent output pixels per fragment into four render targets (MRT4): fragment t computes
// channels 4g..4g+3 of pixels 4x..4x+3 of output row (b, oy), t = ((b * oh + oy) * ceil(ow / 4) + x) * c / 4
// + g, pixel 4x + j going to target j (Merge4 interleaves them). The 4 pixels share each filter texel;
// SLIDE (stride 1, dilation 1 along x): pixel j's tap s is input column ix + j + s, so a window of 4
// input texels slides by one read per tap. Pixels past ow are computed from zero padding, never merged.
// uI[1..17]: h, w, c, oh, ow, co, fh, fw, sh, sw, dh, dw, pt, pl, mult, bias size, prelu size.
#define OWN_MAIN
uniform sampler2D X;
uniform sampler2D F;
//#include epilogue
//#include sampled
//#include pixels4

Tex tX;

// texel g of input pixel (row, x) of a row of w pixels, zero outside the row
vec4 column(int row, int x, int w, int cq, int g) {
  return x >= 0 && x < w ? sampled(X, tX, (row + x) * cq + g) : vec4(0.0);
}

void main() {
  int h = uI[1], w = uI[2], c = uI[3], oh = uI[4], ow = uI[5];
  int fh = uI[7], fw = uI[8], sh = uI[9], sw = uI[10], dh = uI[11], dw = uI[12];
  int cq = c >> 2, b, oy, ox, g;
  pixels4(cq, oh, ow, b, oy, ox, g);
  tX = texInfo(X);
  Tex tF = texInfo(F);
  vec4 acc0 = vec4(0.0), acc1 = vec4(0.0), acc2 = vec4(0.0), acc3 = vec4(0.0);
  for (int r = 0; r < fh; r++) {
    int iy = oy * sh - uI[13] + r * dh;
    if (iy < 0 || iy >= h) continue;
    int row = (b * h + iy) * w, ix = ox * sw - uI[14], tf = r * fw * cq + g;
#ifdef SLIDE
    vec4 x0 = column(row, ix, w, cq, g), x1 = column(row, ix + 1, w, cq, g), x2 = column(row, ix + 2, w, cq, g);
    for (int s = 0; s < fw; s++, tf += cq) {
      vec4 x3 = column(row, ix + s + 3, w, cq, g), f = sampled(F, tF, tf);
      acc0 += f * x0;
      acc1 += f * x1;
      acc2 += f * x2;
      acc3 += f * x3;
      x0 = x1;
      x1 = x2;
      x2 = x3;
    }
#else
    for (int s = 0; s < fw; s++, tf += cq) {
      vec4 f = sampled(F, tF, tf);
      int xs = ix + s * dw;
      acc0 += f * column(row, xs, w, cq, g);
      acc1 += f * column(row, xs + sw, w, cq, g);
      acc2 += f * column(row, xs + 2 * sw, w, cq, g);
      acc3 += f * column(row, xs + 3 * sw, w, cq, g);
    }
#endif
  }
  store4(acc0, acc1, acc2, acc3, b, oy, ox, g, oh, ow, c, uI[16], uI[17]);
}
