// BitwiseAnd: a & b of two int32 tensors of one shape.
uniform sampler2D A;
uniform sampler2D B;

#define SCALAR
float compute(int i) {
  return float(int(at(A, i)) & int(at(B, i)));
}
