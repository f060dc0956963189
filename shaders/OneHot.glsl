// OneHot: output [n, depth]; element (k, d) is uF[0] (on) when indices[k] == d, else uF[1] (off).
// uI[1] = depth.
uniform sampler2D I;

#define SCALAR
float compute(int i) {
  int depth = uI[1];
  return int(at(I, i / depth)) == i % depth ? uF[0] : uF[1];
}
