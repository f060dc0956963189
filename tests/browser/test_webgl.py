"""The webgl backend in the page (WebGL2 on SwiftShader here): the flags are readings of a real context, the
forced float16 path computes within half precision, uploads are lazy and textures are pooled, programs are
compiled once, `await t.data()` lets the page run, and a lost context fails loudly.

Every test leaves tf.memory() and the active backend where it found them (the autouse fixture checks).
Oracles: numpy on the host, and for the flags a WebGL2 context probed directly in JavaScript.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

Py = Callable[[str], Any]

#: runs `body` (an async function body) on a backend and always goes back to the previous one
WRAP = """
import webtf as tf
from webtf.backends.webgl import register
from webtf.engine import ENGINE
_prev = tf.get_backend()
async def _body():
{body}
try:
    assert await tf.set_backend({backend!r}), "backend {backend} did not start"
    _result = await _body()
finally:
    await tf.set_backend(_prev)
_result
"""


def run(py: Py, body: str, backend: str = "webgl") -> Any:
    """Run an async function body in the page on `backend`; its return value comes back."""
    return py(WRAP.format(body=textwrap.indent(textwrap.dedent(body), "    "), backend=backend))


@pytest.fixture(autouse=True)
def _memory_and_backend_return(py: Py) -> Iterator[None]:
    state = "m = tf.memory(); [tf.get_backend(), m.num_tensors, m.num_bytes, m.num_data_buffers]"
    before = py(state)
    yield
    assert py(state) == before


# An independent probe of what the browser's WebGL2 offers: version, float32 rendering, texture limit.
PROBE_JS = """() => {
  const gl = new OffscreenCanvas(1, 1).getContext("webgl2");
  if (!gl) return { version: new OffscreenCanvas(1, 1).getContext("webgl") ? 1 : 0 };
  const res = { version: 2, maxTextureSize: gl.getParameter(gl.MAX_TEXTURE_SIZE), float32: false };
  if (gl.getExtension("EXT_color_buffer_float")) {
    const tex = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, tex);
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32F, 1, 1);
    const fb = gl.createFramebuffer();
    gl.bindFramebuffer(gl.FRAMEBUFFER, fb);
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0);
    const sh = (type, src) => {
      const s = gl.createShader(type); gl.shaderSource(s, src); gl.compileShader(s); return s;
    };
    const p = gl.createProgram();
    gl.attachShader(p, sh(gl.VERTEX_SHADER,
      "#version 300 es\\nvoid main(){gl_PointSize=1.0;gl_Position=vec4(0,0,0,1);}"));
    gl.attachShader(p, sh(gl.FRAGMENT_SHADER,
      "#version 300 es\\nprecision highp float;out vec4 c;void main(){c=vec4(123456.75,-3.0e-7,1.0e30,0.1);}"));
    gl.linkProgram(p); gl.useProgram(p); gl.viewport(0, 0, 1, 1);
    gl.drawArrays(gl.POINTS, 0, 1);
    const out = new Float32Array(4);
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.FLOAT, out);
    const want = new Float32Array([123456.75, -3.0e-7, 1.0e30, 0.1]);
    res.float32 = out.every((v, i) => v === want[i]);
  }
  gl.getExtension("WEBGL_lose_context").loseContext();
  return res;
}"""


def test_flags_are_readings_of_the_real_context(webtf_page: Any, py: Py) -> None:
    probe = webtf_page.evaluate(PROBE_JS)
    res = run(
        py,
        """
        env = tf.env()
        b = tf.find_backend("webgl")
        names = ["WEBGL_VERSION", "HAS_WEBGL", "WEBGL_RENDER_FLOAT32_CAPABLE", "WEBGL_RENDER_FLOAT32_ENABLED",
                 "WEBGL_PACK", "WEBGL_MAX_TEXTURE_SIZE", "WEBGL_FORCE_F16_TEXTURES"]
        flags = {n: env.get(n) for n in names}
        env.set("WEBGL_FORCE_F16_TEXTURES", True)
        enabled_when_forced = env.get("WEBGL_RENDER_FLOAT32_ENABLED")
        env.set("WEBGL_FORCE_F16_TEXTURES", False)
        # packed layout: 4 elements per RGBA texel, so 1024 float32 elements take 4096 bytes of texture
        g0 = tf.memory().num_bytes_in_gpu
        x = tf.ones([64, 16])
        y = tf.add(x, x)  # uploads x, draws y
        g1 = tf.memory().num_bytes_in_gpu
        tf.dispose([x, y])
        return {"flags": flags, "forced": enabled_when_forced, "again": env.get("WEBGL_RENDER_FLOAT32_ENABLED"),
                "bytes": g1 - g0, "max_tex": b.max_texture_size, "precision": b.float_precision()}
        """,
    )
    flags = res["flags"]
    assert probe["version"] == 2
    assert flags["WEBGL_VERSION"] == 2 and flags["HAS_WEBGL"] is True
    assert flags["WEBGL_RENDER_FLOAT32_CAPABLE"] is probe["float32"]
    assert flags["WEBGL_FORCE_F16_TEXTURES"] is False
    assert flags["WEBGL_RENDER_FLOAT32_ENABLED"] is probe["float32"]
    assert res["forced"] is False and res["again"] is probe["float32"]
    assert flags["WEBGL_MAX_TEXTURE_SIZE"] == probe["maxTextureSize"] == res["max_tex"]
    assert flags["WEBGL_PACK"] is True
    bytes_per_element = 4 if probe["float32"] else 2
    assert res["bytes"] == 2 * 1024 * bytes_per_element
    assert res["precision"] == (32 if probe["float32"] else 16)


def test_forced_float16_textures_compute_within_half_precision(py: Py) -> None:
    rng = np.random.default_rng(3)
    a, b = rng.uniform(-1, 1, (6, 40)).astype(np.float32), rng.uniform(-1, 1, (40, 12)).astype(np.float32)
    x, f = (
        rng.uniform(-1, 1, (1, 9, 9, 8)).astype(np.float32),
        rng.uniform(-1, 1, (3, 3, 8, 4)).astype(np.float32),
    )
    args = {k: (v.ravel().tolist(), list(v.shape)) for k, v in dict(a=a, b=b, x=x, f=f).items()}
    py("tf.env().set('WEBGL_FORCE_F16_TEXTURES', True)\nfrom webtf.backends.webgl import register\n"
       "register('webgl-f16', priority=0)")  # fmt: skip
    try:
        res = run(
            py,
            f"""
            be = tf.find_backend("webgl-f16")
            t = {{k: tf.tensor(v, s) for k, (v, s) in {args!r}.items()}}
            # 128 elements: past CPU_HANDOFF_SIZE_THRESHOLD, so mul and div run on the GPU, not the cpu twin
            t["big"] = tf.tensor([1000.0, -1000.0, 3.0, 1.0e6] * 32)
            g0 = tf.memory().num_bytes_in_gpu
            outs = {{
                "mm": tf.mat_mul(t["a"], t["b"]),
                "conv": tf.conv2d(t["x"], t["f"], 1, "same"),
                "exp": tf.exp(t["a"]),
                "sum": tf.sum(t["b"], 0),
                "softmax": tf.softmax(t["a"]),
                "big": tf.mul(t["big"], 100.0),
                "inf": tf.div(t["big"], 0.0),
            }}
            gpu = tf.memory().num_bytes_in_gpu - g0
            got = {{k: v.data_sync().tolist() for k, v in outs.items()}}
            tf.dispose(list(outs.values()) + list(t.values()))
            return {{"got": got, "gpu": gpu, "precision": be.float_precision(), "float32": be.float32,
                    "enabled": tf.env().get("WEBGL_RENDER_FLOAT32_ENABLED")}}
            """,
            backend="webgl-f16",
        )
    finally:
        py("tf.env().set('WEBGL_FORCE_F16_TEXTURES', False)\ntf.remove_backend('webgl-f16')")
    assert res["precision"] == 16 and res["float32"] is False and res["enabled"] is False
    # inputs (4 + 6 tensors) and outputs live in RGBA16F: 2 bytes per element, texture rows rounded up
    assert 0 < res["gpu"] < 4 * (a.size + b.size + x.size + f.size) + 4 * 2000
    got = {k: np.array(v) for k, v in res["got"].items()}
    half = 2.0**-10  # float16 epsilon: inputs and outputs are rounded to it, sums stay in float32
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    bound = 3 * half * (np.abs(a64) @ np.abs(b64))
    assert np.all(np.abs(got["mm"].reshape(6, 12) - a64 @ b64) <= bound)
    fh = np.pad(x.astype(np.float64), ((0, 0), (1, 1), (1, 1), (0, 0)))
    conv = sum(
        np.einsum("bhwc,co->bhwo", fh[:, i : i + 9, j : j + 9, :], f[i, j])
        for i in range(3)
        for j in range(3)
    )
    absconv = sum(
        np.einsum("bhwc,co->bhwo", np.abs(fh[:, i : i + 9, j : j + 9, :]), np.abs(f[i, j]))
        for i in range(3)
        for j in range(3)
    )
    assert np.all(np.abs(got["conv"].reshape(conv.shape) - conv) <= 3 * half * absconv)
    np.testing.assert_allclose(got["exp"].reshape(a.shape), np.exp(a64), rtol=3 * half)
    assert np.all(np.abs(got["sum"] - b64.sum(0)) <= 3 * half * np.abs(b64).sum(0))
    sm = np.exp(a64 - a64.max(1, keepdims=True))
    np.testing.assert_allclose(
        got["softmax"].reshape(a.shape), sm / sm.sum(1, keepdims=True), rtol=6 * half, atol=1e-4
    )
    # beyond the half-float range values are clamped to +-65504, infinities too (documented)
    assert got["big"].tolist() == [65504.0, -65504.0, 300.0, 65504.0] * 32
    assert got["inf"].tolist() == [65504.0, -65504.0, 65504.0, 65504.0] * 32


def test_uploads_are_lazy_and_textures_recycled_without_growth(py: Py) -> None:
    res = run(
        py,
        """
        b = tf.find_backend("webgl")
        mem = tf.memory
        g0 = mem().num_bytes_in_gpu
        x = tf.tensor([float(i % 17) for i in range(4096)], [64, 64])
        lazy = [mem().num_bytes_in_gpu - g0, b.data[x.data_id].tex is None]
        y = tf.relu(x)
        uploaded = [mem().num_bytes_in_gpu - g0, b.data[x.data_id].tex is not None]

        def step():
            return tf.sum(tf.mul(tf.add(tf.mul(x, 2.0), y), y), 1)

        tf.tidy(step).dispose()
        first = [mem().num_tensors, mem().num_bytes_in_gpu, mem().num_bytes_in_gpu_allocated,
                 mem().extra["num_textures"]]
        for _ in range(1000):
            tf.tidy(step).dispose()
        last = [mem().num_tensors, mem().num_bytes_in_gpu, mem().num_bytes_in_gpu_allocated,
                mem().extra["num_textures"]]
        result = tf.tidy(step)
        check = result.data_sync().tolist()
        result.dispose()
        ref = [sum((3.0 * float(i % 17)) * float(i % 17) for i in range(r * 64, r * 64 + 64)) for r in range(64)]
        free_before = mem().extra["num_free_textures"]
        tf.dispose([x, y])
        after = [mem().num_bytes_in_gpu - g0, mem().extra["num_free_textures"] - free_before]
        return {"lazy": lazy, "uploaded": uploaded, "first": first, "last": last, "after": after,
                "err": max(abs(a - r) for a, r in zip(check, ref))}
        """,
    )
    per_tensor = 4096 * 4  # 64x64 float32 in a 32x32 RGBA32F texture
    assert res["lazy"] == [0, True]
    assert res["uploaded"] == [2 * per_tensor, True]
    assert res["last"] == res["first"]  # 4,000 kernels later: no tensor, texture or byte more
    assert res["after"] == [0, 2]  # dispose gives both textures back to the pool
    assert res["err"] <= 1e-3 * 64 * 16 * 48


def test_second_run_of_a_graph_compiles_nothing(py: Py) -> None:
    py("from webtf.backends.webgl import register\nregister('webgl-cache', priority=0)")
    try:
        res = run(
            py,
            """
            b = tf.find_backend("webgl-cache")

            def graph(n, hw):
                x = tf.random_uniform([n, hw, hw, 4], -1, 1, seed=1)
                f = tf.random_uniform([3, 3, 4, 8], -1, 1, seed=2)
                h = tf.relu(tf.conv2d(x, f, 1, "same"))
                h = tf.reshape(tf.max_pool(h, 2, 2, "valid"), [n, -1])
                w = tf.random_uniform([h.shape[1], 5], -1, 1, seed=3)
                return tf.softmax(tf.add(tf.mat_mul(h, w), 0.5))

            counts = [b.num_programs]
            for n, hw in ((1, 8), (1, 8), (2, 12)):
                out = tf.tidy(lambda: graph(n, hw))
                out.data_sync()
                out.dispose()
                counts.append(b.num_programs)
            return {"counts": counts, "exposed": tf.memory().extra["num_programs"]}
            """,
            backend="webgl-cache",
        )
    finally:
        py("tf.remove_backend('webgl-cache')")
    first, second, other_shapes = res["counts"][1:]
    assert res["counts"][0] == 0 and first > 0
    assert second == first  # the same graph again: every program came from the cache
    assert other_shapes == first  # shapes are uniforms: new sizes need no new variant
    assert res["exposed"] == first


TICKS_JS = """() => {
  const t = window.webtfTicks = { raf: 0, timer: 0, stop: false };
  const frame = () => { if (!t.stop) { t.raf++; requestAnimationFrame(frame); } };
  const timer = () => { if (!t.stop) { t.timer++; setTimeout(timer, 0); } };
  requestAnimationFrame(frame); setTimeout(timer, 0);
}"""


def test_await_data_lets_the_page_run_and_data_sync_blocks(webtf_page: Any, py: Py) -> None:
    webtf_page.evaluate(TICKS_JS)
    try:
        res = run(
            py,
            """
            import js
            ticks = lambda: [js.webtfTicks.raf, js.webtfTicks.timer]
            a = tf.random_uniform([384, 384], -1, 1, seed=5)
            av = a.data_sync().tolist()
            y = tf.tidy(lambda: tf.mat_mul(tf.mat_mul(a, a), a))
            before = ticks()
            got = (await y.data()).tolist()
            during_async = [n - b for n, b in zip(ticks(), before)]
            z = tf.tidy(lambda: tf.mat_mul(tf.mat_mul(a, a), tf.add(a, 0.0)))
            before = ticks()
            z.data_sync()
            during_sync = [n - b for n, b in zip(ticks(), before)]
            tf.dispose([a, y, z])
            n = 384
            a2 = [[sum(av[i * n + k] * av[k * n + j] for k in range(n)) for j in range(n)] for i in (0, 77)]
            ref = [[sum(a2[r][k] * av[k * n + j] for k in range(n)) for j in (0, 200, 383)] for r in range(2)]
            sample = [[got[i * n + j] for j in (0, 200, 383)] for i in (0, 77)]
            return {"async": during_async, "sync": during_sync, "ref": ref, "got": sample}
            """,
        )
    finally:
        webtf_page.evaluate("() => { window.webtfTicks.stop = true; }")
    assert res["async"][0] > 0 and res["async"][1] > 0  # frames and timers ran while the read was pending
    assert res["sync"] == [0, 0]  # data_sync holds the page until the values are there
    np.testing.assert_allclose(res["got"], res["ref"], rtol=1e-3, atol=1e-2)


def test_context_loss_gives_a_clear_error_and_the_engine_moves_on(py: Py) -> None:
    py("from webtf.backends.webgl import register\nregister('webgl-lost', priority=0)")
    try:
        res = run(
            py,
            """
            from webtf.backends.webgl import ContextLostError
            b = tf.find_backend("webgl-lost")
            # 128 elements: past CPU_HANDOFF_SIZE_THRESHOLD, so the ops draw (not forwarded to the cpu twins)
            x = tf.tensor([1.0, 2.0, 3.0, 4.0] * 32)
            y = tf.mul(x, 2.0)
            read_before = y.data_sync().tolist()[:4]
            z = tf.add(x, 1.0)  # drawn, never read
            b.ctx.gl.getExtension("WEBGL_lose_context").loseContext()
            errors = {}
            for what, fn in (("op", lambda: tf.add(x, 1.0)), ("data_sync", z.data_sync)):
                try:
                    fn()
                    errors[what] = None
                except ContextLostError as e:
                    errors[what] = str(e)
            try:
                await z.data()
                errors["data"] = None
            except ContextLostError as e:
                errors["data"] = str(e)
            tf.dispose([x, y, z])
            switched = await tf.set_backend("cpu")
            on_cpu = tf.tensor([1.0, 2.0])
            cpu_values = tf.tidy(lambda: tf.add(on_cpu, 1.0).data_sync().tolist())
            on_cpu.dispose()
            return {"before": read_before, "errors": errors, "switched": switched, "cpu": cpu_values}
            """,
            backend="webgl-lost",
        )
    finally:
        py("tf.remove_backend('webgl-lost')")
    assert res["before"] == [2.0, 4.0, 6.0, 8.0]
    for what, message in res["errors"].items():
        assert message is not None, f"{what} after context loss gave numbers instead of an error"
        assert "WebGL context was lost" in message and "set_backend" in message
    assert res["switched"] is True and res["cpu"] == [2.0, 3.0]


def test_small_element_wise_ops_on_host_inputs_run_on_the_cpu_twins(py: Py) -> None:
    """As TF.js's WEBGL_CPU_FORWARD: element-wise kernels whose inputs are all still on the host (no texture)
    and smaller than CPU_HANDOFF_SIZE_THRESHOLD run the cpu kernel, the output stays on the host; either flag
    off, a larger input or one already on the GPU draws. Profiles still list each kernel."""
    res = run(
        py,
        """
        b = tf.find_backend("webgl")
        env = tf.env()
        on_gpu = lambda t: b.data[t.data_id].tex is not None
        x = tf.tensor([1.0, -2.0, 3.0, 0.25])
        big = tf.tensor([float(i % 7) for i in range(128)])
        out = {}
        with_forward = [tf.add(x, x), tf.mul(x, 3.0), tf.exp(x), tf.maximum(x, 0.5), tf.less(x, 1.0)]
        out["forwarded"] = [[on_gpu(t), t.data_sync().tolist()] for t in with_forward]
        drawn = [tf.add(big, big)]
        profile = await tf.profile(lambda: tf.tidy(lambda: tf.sub(tf.add(x, x), x).data_sync().tolist()))
        out["kernels"] = [k.name for k in profile.kernels]
        out["profiled"] = profile.result
        saved = [env.get("WEBGL_CPU_FORWARD"), env.get("CPU_HANDOFF_SIZE_THRESHOLD")]
        env.set("WEBGL_CPU_FORWARD", False)
        drawn.append(tf.add(x, x))
        env.set("WEBGL_CPU_FORWARD", saved[0])
        env.set("CPU_HANDOFF_SIZE_THRESHOLD", 4)
        drawn.append(tf.add(x, x))
        env.set("CPU_HANDOFF_SIZE_THRESHOLD", saved[1])
        uploaded = tf.relu(x)  # Relu is not forwarded: x is uploaded, so x's next ops draw too
        drawn.append(tf.add(x, 1.0))
        out["drawn"] = [[on_gpu(t), t.data_sync().tolist()[:4]] for t in drawn]
        out["defaults"] = saved
        tf.dispose(with_forward + drawn + [x, big, uploaded])
        return out
        """,
    )
    x = np.array([1.0, -2.0, 3.0, 0.25], np.float32)
    wants = [x + x, x * 3, np.exp(x), np.maximum(x, 0.5), (x < 1).astype(np.float32)]
    for (gpu, got), want in zip(res["forwarded"], wants, strict=True):
        assert gpu is False
        np.testing.assert_allclose(got, want, rtol=1e-6)
    assert res["defaults"] == [True, 128]  # TF.js's defaults
    big = np.array([float(i % 7) for i in range(4)])
    for (gpu, got), want in zip(res["drawn"], [big * 2, x + x, x + x, x + 1], strict=True):
        assert gpu is True
        np.testing.assert_allclose(got, want, rtol=1e-6)
    assert res["kernels"] == ["Add", "Sub"] and res["profiled"] == (x + x - x).tolist()
