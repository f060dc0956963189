// Transform, bilinear: image [b, h, w, c] -> [b, oh, ow, c] float32, coordinates computed here (TF.js's
// webgl kernel does the same; bilinear weights are continuous, so float32 coordinates give the cpu kernel's
// values to rounding). T: the transforms [1 or b, 8]; uF[0]: the fill value.
// uI[1..7]: h, w, c, oh, ow, fill mode (1 constant, 2 reflect, 3 wrap, 4 nearest), 1 when each image has
// its own transform row.
uniform sampler2D X;
uniform sampler2D T;

// TF's image_ops map_coord (backend_util/warp.py)
float mapCoord(float v, int n, int mode) {
  float len = float(n);
  if (mode == 2) {
    if (v < 0.0) {
      if (n <= 1) {
        v = 0.0;
      } else {
        float sz2 = 2.0 * len;
        if (v < sz2) v = sz2 * trunc(-v / sz2) + v;
        v = v < -len ? v + sz2 : -v - 1.0;
      }
    } else if (v > len - 1.0) {
      if (n <= 1) {
        v = 0.0;
      } else {
        float sz2 = 2.0 * len;
        v -= sz2 * trunc(v / sz2);
        if (v >= len) v = sz2 - v - 1.0;
      }
    }
  } else if (mode == 3) {
    if (v < 0.0) {
      v = n <= 1 ? 0.0 : v + len * (trunc(-v / (len - 1.0)) + 1.0);
    } else if (v > len - 1.0) {
      v = n <= 1 ? 0.0 : v - len * trunc(v / (len - 1.0));
    }
  } else if (mode != 4) {
    return v;
  }
  return clamp(v, 0.0, len - 1.0);
}

float pixel(int b, int y, int x, int d) {
  int h = uI[1], w = uI[2], c = uI[3];
  return (y >= 0 && y < h && x >= 0 && x < w) ? at(X, ((b * h + y) * w + x) * c + d) : uF[0];
}

#define SCALAR
float compute(int i) {
  int h = uI[1], w = uI[2], c = uI[3], oh = uI[4], ow = uI[5], mode = uI[6];
  int d = i % c, p = i / c;
  int ox = p % ow;
  p /= ow;
  int oy = p % oh, b = p / oh;
  int o = uI[7] == 1 ? b * 8 : 0;
  float fx = float(ox), fy = float(oy);
  float proj = at(T, o + 6) * fx + at(T, o + 7) * fy + 1.0;
  if (proj == 0.0) return uF[0];
  float x = mapCoord((at(T, o) * fx + at(T, o + 1) * fy + at(T, o + 2)) / proj, w, mode);
  float y = mapCoord((at(T, o + 3) * fx + at(T, o + 4) * fy + at(T, o + 5)) / proj, h, mode);
  float x0 = floor(x), y0 = floor(y);
  int ix = int(x0), iy = int(y0);
  float top = (x0 + 1.0 - x) * pixel(b, iy, ix, d) + (x - x0) * pixel(b, iy, ix + 1, d);
  float bottom = (x0 + 1.0 - x) * pixel(b, iy + 1, ix, d) + (x - x0) * pixel(b, iy + 1, ix + 1, d);
  return (y0 + 1.0 - y) * top + (y - y0) * bottom;
}
