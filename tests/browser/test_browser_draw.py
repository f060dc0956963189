"""Page test: tf.browser.draw puts a tensor's pixels into a canvas and tf.browser.from_pixels_async reads them
back (plain and wrapped in an ImageBitmap), checked against the tensor's values; bad input names draw and the
argument; tf.io.decode_weights_stream reads a JS ReadableStream. One page call for every case."""

import numpy as np

RNG = np.random.default_rng(5)
FLOAT = RNG.integers(0, 256, (3, 4, 3)) / 255  # exact multiples of 1/255: round(v * 255) is the byte
GRAY = RNG.integers(0, 256, (2, 3))
RGBA = RNG.integers(0, 256, (2, 2, 4))
RGBA[..., 3] = 255  # opaque, so the canvas keeps the color bytes exactly

CODE = f"""
import js
from webtf.environment import ENV
start = tf.memory().num_tensors
out = {{}}

def read(canvas):
    return list(canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data.to_py())

def canvas():
    return js.document.createElement("canvas")

c = canvas()
t = tf.tensor({FLOAT.tolist()}, dtype="float32")
tf.browser.draw(t, c)
out["float"] = [c.width, c.height, read(c)]
out["to_pixels"] = list(await tf.browser.to_pixels(t))
back = await tf.browser.from_pixels_async(c, 4)
out["float_back"] = back.array_sync()
ENV.set("WRAP_TO_IMAGEBITMAP", True)
wrapped = await tf.browser.from_pixels_async(c)
ENV.set("WRAP_TO_IMAGEBITMAP", False)
out["wrapped"] = wrapped.array_sync()
tf.dispose([t, back, wrapped])

c = canvas()
tf.browser.draw({GRAY.tolist()}, c, {{"imageOptions": {{"alpha": 1}}}})  # a list: taken as int32
out["gray"] = read(c)
c = canvas()
t = tf.tensor({RGBA.tolist()}, dtype="int32")
tf.browser.draw(t, c, {{"context_options": {{"context_type": "2d"}}}})
out["rgba"] = read(c)
c = canvas()
half = tf.tensor([[0.0, 1.0]])
tf.browser.draw(half, c, {{"image_options": {{"alpha": 0.5}}}})
out["alpha"] = read(c)[3::4]

# decode_weights_stream reads a JS ReadableStream (a fetch body) too
specs = tf.io.get_weight_specs([{{"paths": [], "weights": [{{"name": "w", "shape": [3], "dtype": "int32"}}]}}])
body = js.Response.new(js.Uint8Array.new([1, 0, 0, 0, 2, 1, 0, 0, 255, 255, 255, 255])).body
streamed = await tf.io.decode_weights_stream(body, specs)
out["stream"] = streamed["w"].array_sync()
tf.dispose(streamed["w"])

errors = []
deep, flat = tf.zeros([2, 2, 2]), tf.zeros([2])
for args in [(t, c, {{"image_options": {{"alpha": 2}}}}), (deep, c), (t, c, {{"contextOptions":
             {{"contextType": "webgl"}}}}), (t, None), ([[300]], c), (flat, c)]:
    try:
        tf.browser.draw(*args)
        errors.append(None)
    except (ValueError, TypeError) as e:
        errors.append(str(e))
out["errors"] = errors
tf.dispose([t, half, deep, flat])
out["leaked"] = tf.memory().num_tensors - start
out
"""


def _rgba(rgb, alpha=255):
    h, w = rgb.shape[:2]
    out = np.full((h, w, 4), alpha)
    out[..., :3] = rgb
    return out.reshape(-1).tolist()


def test_draw_and_from_pixels_async(py):
    out = py(CODE)
    byte = np.round(FLOAT * 255).astype(int)
    assert out["float"] == [4, 3, _rgba(byte)]
    assert out["to_pixels"] == _rgba(byte)
    assert out["float_back"] == np.concatenate([byte, np.full((3, 4, 1), 255)], axis=2).tolist()
    assert out["wrapped"] == byte.tolist()
    assert out["gray"] == _rgba(np.repeat(GRAY[..., None], 3, axis=2))
    assert out["rgba"] == RGBA.reshape(-1).tolist()
    assert out["alpha"] == [128, 128]  # round(0.5 * 255)
    assert out["stream"] == [1, 258, -1]  # little-endian int32s of the bytes
    e = out["errors"]
    assert "draw: alpha value 2 is supposed to be in range [0 - 1]" in e[0]
    assert "draw only supports depth of size 1, 3 or 4 but got 2" in e[1]
    assert "draw: context type 'webgl' is not supported" in e[2]
    assert "draw: canvas must be an HTMLCanvasElement or OffscreenCanvas, got None" in e[3]
    assert "Tensor values for a int32 Tensor must be in the range [0 - 255] but encountered 300" in e[4]
    assert "draw only supports rank 2 or 3 tensors, got rank 1" in e[5]
    assert out["leaked"] == 0
