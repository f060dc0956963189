// ScatterNd (OP_SUM) and TensorScatterUpdate: slice `row` of the output gathers the updates whose index
// row (sum of indices[n, j] * uI[4 + j]) is `row`: summed into zeros, or the last one replacing T's value.
// uI[1] = number of updates, uI[2] = slice size, uI[3] = index depth (<= 6), uI[4..9] = slice strides.
// SparseToDense: T_SCALAR (T is the one default value) and U_SCALAR (one update value for every index).
uniform sampler2D I;
uniform sampler2D U;
#ifndef OP_SUM
uniform sampler2D T;
#endif

#define SCALAR
float compute(int i) {
  int size = uI[2];
  int depth = uI[3];
  int row = i / size;
  int k = i % size;
#ifdef OP_SUM
  float out_value = 0.0;
#else
#ifdef T_SCALAR
  float out_value = at(T, 0);
#else
  float out_value = at(T, i);
#endif
#endif
  for (int n = 0; n < uI[1]; n++) {
    int r = 0;
    for (int j = 0; j < depth; j++) {
      r += int(at(I, n * depth + j)) * uI[4 + j];
    }
    if (r == row) {
#ifdef U_SCALAR
      float u = at(U, 0);
#else
      float u = at(U, n * size + k);
#endif
#ifdef OP_SUM
      out_value += u;
#else
      out_value = u;
#endif
    }
  }
  return out_value;
}
