// Shared by the four-pixel programs (Conv2DX4, DepthwiseConv2dX4; MRT4): which outputs a fragment computes,
// and their store. Fragment t = ((b * oh + oy) * ceil(ow / 4) + x) * cq + g computes channels 4g..4g+3 of
// pixels 4x..4x+3 of output row (b, oy); pixel 4x + j goes to target j (Merge4 interleaves them).

// batch b, output row oy, first output column ox and channel group g of this fragment (cq groups of 4)
void pixels4(int cq, int oh, int ow, out int b, out int oy, out int ox, out int g) {
  ivec2 fc = ivec2(gl_FragCoord.xy);
  int t = (fc.y << uI[0]) + fc.x;
  int q = t / cq, ow4 = (ow + 3) >> 2;
  g = t - q * cq;
  ox = (q % ow4) << 2;
  q /= ow4;
  oy = q % oh;
  b = q / oh;
}

// the four pixels' sums through the epilogue into the four targets (c channels per pixel)
void store4(vec4 a0, vec4 a1, vec4 a2, vec4 a3, int b, int oy, int ox, int g, int oh, int ow, int c,
            int nBias, int nPrelu) {
  int i = (((b * oh + oy) * ow + ox) * (c >> 2) + g) << 2;
  outColor = epilogue4(a0, i, nBias, nPrelu);
  outColor1 = epilogue4(a1, i + c, nBias, nPrelu);
  outColor2 = epilogue4(a2, i + 2 * c, nBias, nPrelu);
  outColor3 = epilogue4(a3, i + 3 * c, nBias, nPrelu);
}
