// out[r, c] = sum_k A[r, k] * B[k, c] (+ bias, activation) for A [m, k] and B [k, n], k % 4 == 0 and
// n % 4 == 0, four rows per fragment into four render targets (MRT4): fragment t computes columns
// 4c..4c+3 of rows 4q..4q+3 (t = q * n / 4 + c), row 4q + j going to target j. Each step along k reads
// 4 texels of B shared by the 4 rows and one texel of A per row: 8 reads for 64 multiply-adds, where one
// row per fragment costs 5 reads for 16. Merge4 then interleaves the targets into the output.
// uI[1..5]: m, k, n, bias size, prelu size. Rows past m repeat row m - 1 and are never merged.
#define OWN_MAIN
uniform sampler2D A;
uniform sampler2D B;
//#include epilogue
//#include sampled

void main() {
  ivec2 fc = ivec2(gl_FragCoord.xy);
  int t = (fc.y << uI[0]) + fc.x;
  int m = uI[1], k4 = uI[2] >> 2, n = uI[3], n4 = n >> 2;
  int q = t / n4, c = t - q * n4, r = q << 2;
  Tex tA = texInfo(A), tB = texInfo(B);
  int ta0 = min(r, m - 1) * k4, ta1 = min(r + 1, m - 1) * k4, ta2 = min(r + 2, m - 1) * k4,
      ta3 = min(r + 3, m - 1) * k4;
  vec4 acc0 = vec4(0.0), acc1 = vec4(0.0), acc2 = vec4(0.0), acc3 = vec4(0.0);
  // B's 4-row block starts at texel tb and advances by 4 rows (n texels) per step
  for (int kk = 0, tb = c; kk < k4; kk++, tb += n) {
    mat4 b = mat4(sampled(B, tB, tb), sampled(B, tB, tb + n4), sampled(B, tB, tb + 2 * n4),
                  sampled(B, tB, tb + 3 * n4));
    acc0 += b * sampled(A, tA, ta0 + kk);
    acc1 += b * sampled(A, tA, ta1 + kk);
    acc2 += b * sampled(A, tA, ta2 + kk);
    acc3 += b * sampled(A, tA, ta3 + kk);
  }
  int i = r * n + (c << 2);
  outColor = epilogue4(acc0, i, uI[4], uI[5]);
  outColor1 = epilogue4(acc1, i + n, uI[4], uI[5]);
  outColor2 = epilogue4(acc2, i + 2 * n, uI[4], uI[5]);
  outColor3 = epilogue4(acc3, i + 3 * n, uI[4], uI[5]);
}
