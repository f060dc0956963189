"""One offscreen WebGL2 context: capability probes, context-loss tracking, and the JS side of every GL call.

Each Python -> JS call costs microseconds, so the hot paths (one draw per kernel, one upload, one read) are
single calls into a small JS helper created once per context (`_HELPER_JS`). It keeps the GL state that
never changes bound (the framebuffer, an empty VAO for the attribute-less full-screen triangle), skips
uniform uploads whose values did not change, and reports a lost context instead of drawing nothing.
GL errors are only queried in debug mode (the DEBUG flag), where every draw and upload is checked.
"""

from __future__ import annotations

from typing import Any

from ...environment import ENV
from .. import js as bridge

CONTEXT_OPTIONS = {
    "alpha": False,
    "antialias": False,
    "premultipliedAlpha": False,
    "preserveDrawingBuffer": False,
    "depth": False,
    "stencil": False,
    "failIfMajorPerformanceCaveat": False,
    "powerPreference": "high-performance",
}

#: the vertex shader of every program: one triangle covering the viewport, from gl_VertexID alone.
VERTEX_SHADER = """#version 300 es
void main() {
  gl_Position = vec4(float((gl_VertexID & 1) << 2) - 1.0, float((gl_VertexID & 2) << 1) - 1.0, 0.0, 1.0);
}
"""

_HELPER_JS = r"""
(gl, debug, half) => {
  const TEX = gl.TEXTURE_2D, FB = gl.FRAMEBUFFER, ATT = gl.COLOR_ATTACHMENT0, RGBA = gl.RGBA, FLOAT = gl.FLOAT;
  const PACK = gl.PIXEL_PACK_BUFFER;
  const fb = gl.createFramebuffer();
  const vao = gl.createVertexArray();
  gl.bindVertexArray(vao);
  gl.bindFramebuffer(FB, fb);
  gl.disable(gl.DEPTH_TEST); gl.disable(gl.BLEND); gl.disable(gl.DITHER); gl.disable(gl.SCISSOR_TEST);
  gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
  gl.pixelStorei(gl.PACK_ALIGNMENT, 1);
  let current = null, attached = null, vw = -1, vh = -1;
  const U = new Int32Array(256), F = new Float32Array(64);
  const check = (what) => {
    const e = gl.getError();
    if (e !== gl.NO_ERROR && !gl.isContextLost()) throw new Error(`WebGL error 0x${e.toString(16)} in ${what}`);
  };
  const attach = (tex) => {
    if (attached !== tex) { gl.framebufferTexture2D(FB, ATT, TEX, tex, 0); attached = tex; }
  };
  let fb4 = null;
  const attached4 = [null, null, null, null];
  // use prog, bind its nt input textures, upload the uniforms that changed (rest: textures, ints, floats)
  const prepare = (prog, nt, rest) => {
    if (current !== prog.p) { gl.useProgram(prog.p); current = prog.p; }
    for (let k = 0; k < nt; k++) { gl.activeTexture(gl.TEXTURE0 + k); gl.bindTexture(TEX, rest[k]); }
    const ni = prog.ni, nf = prog.nf, lastI = prog.lastI, lastF = prog.lastF;
    let changed = false;
    for (let k = 0; k < ni; k++) {
      const v = rest[nt + k];
      if (lastI[k] !== v) { lastI[k] = v; changed = true; }
    }
    if (changed) gl.uniform1iv(prog.locI, lastI);
    if (nf) {
      changed = false;
      for (let k = 0; k < nf; k++) {
        const v = rest[nt + ni + k];
        if (!Object.is(lastF[k], Math.fround(v))) { lastF[k] = v; changed = true; }
      }
      if (changed) gl.uniform1fv(prog.locF, lastF);
    }
  };
  const compileShader = (type, src) => {
    const s = gl.createShader(type);
    gl.shaderSource(s, src);
    gl.compileShader(s);
    if (!gl.getShaderParameter(s, gl.COMPILE_STATUS) && !gl.isContextLost()) {
      const log = gl.getShaderInfoLog(s);
      gl.deleteShader(s);
      throw new Error("shader compilation failed: " + log);
    }
    return s;
  };
  let vshader = null;
  return {
    // -> {p, locI, locF, ni, nf, lastI, lastF}; throws with the info log when compiling or linking fails
    compile(vsrc, fsrc, samplers, ni, nf) {
      if (gl.isContextLost()) return undefined;
      if (vshader === null) vshader = compileShader(gl.VERTEX_SHADER, vsrc);
      const fs = compileShader(gl.FRAGMENT_SHADER, fsrc);
      const p = gl.createProgram();
      gl.attachShader(p, vshader); gl.attachShader(p, fs);
      gl.linkProgram(p);
      gl.detachShader(p, fs); gl.deleteShader(fs);
      if (!gl.getProgramParameter(p, gl.LINK_STATUS) && !gl.isContextLost()) {
        const log = gl.getProgramInfoLog(p);
        gl.deleteProgram(p);
        throw new Error("program link failed: " + log);
      }
      gl.useProgram(p); current = p;
      for (let k = 0; k < samplers.length; k++) gl.uniform1i(gl.getUniformLocation(p, samplers[k]), k);
      return {
        p, ni, nf, locI: gl.getUniformLocation(p, "uI"), locF: nf ? gl.getUniformLocation(p, "uF") : null,
        lastI: new Int32Array(ni).fill(-2147483648), lastF: new Float32Array(nf).fill(NaN),
      };
    },
    // one kernel: bind nt input textures and the output, set changed uniforms, draw. false: context lost.
    run(prog, out, w, h, nt, ...rest) {
      if (gl.isContextLost()) return false;
      prepare(prog, nt, rest);
      attach(out);
      if (vw !== w || vh !== h) { gl.viewport(0, 0, w, h); vw = w; vh = h; }
      gl.drawArrays(gl.TRIANGLES, 0, 3);
      if (debug) check("draw");
      return true;
    },
    // the same into four w x h outputs at once (a program with 4 render targets), through a second
    // framebuffer whose draw buffers are set once
    run4(prog, o0, o1, o2, o3, w, h, nt, ...rest) {
      if (gl.isContextLost()) return false;
      prepare(prog, nt, rest);
      if (fb4 === null) {
        fb4 = gl.createFramebuffer();
        gl.bindFramebuffer(FB, fb4);
        gl.drawBuffers([ATT, ATT + 1, ATT + 2, ATT + 3]);
      } else {
        gl.bindFramebuffer(FB, fb4);
      }
      const outs = [o0, o1, o2, o3];
      for (let j = 0; j < 4; j++) {
        if (attached4[j] !== outs[j]) { gl.framebufferTexture2D(FB, ATT + j, TEX, outs[j], 0); attached4[j] = outs[j]; }
      }
      if (vw !== w || vh !== h) { gl.viewport(0, 0, w, h); vw = w; vh = h; }
      gl.drawArrays(gl.TRIANGLES, 0, 3);
      gl.bindFramebuffer(FB, fb);
      if (debug) check("draw4");
      return true;
    },
    // an immutable RGBA texture of w x h texels (nearest filtering: texelFetch needs a complete texture)
    alloc(w, h, fmt) {
      const t = gl.createTexture();
      gl.bindTexture(TEX, t);
      gl.texStorage2D(TEX, 1, fmt, w, h);
      gl.texParameteri(TEX, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
      gl.texParameteri(TEX, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
      gl.texParameteri(TEX, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
      gl.texParameteri(TEX, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
      if (debug) check("alloc");
      return t;
    },
    free(t) {
      if (attached === t) { gl.framebufferTexture2D(FB, ATT, TEX, null, 0); attached = null; }
      const j = attached4.indexOf(t);
      if (j >= 0) {
        gl.bindFramebuffer(FB, fb4);
        gl.framebufferTexture2D(FB, ATT + j, TEX, null, 0);
        gl.bindFramebuffer(FB, fb);
        attached4[j] = null;
      }
      gl.deleteTexture(t);
    },
    // data: a Float32Array of the flat values (4 per texel, row-major texels); the last texel is zero-padded
    // (half-float textures: values beyond +-65504, infinities too, are clamped to it, as kernel outputs are)
    upload(t, w, data) {
      if (gl.isContextLost()) return false;
      if (half) {
        for (let i = 0; i < data.length; i++) {
          const v = data[i];
          if (v > 65504) data[i] = 65504; else if (v < -65504) data[i] = -65504;
        }
      }
      gl.bindTexture(TEX, t);
      const texels = (data.length + 3) >> 2, full = Math.floor(data.length / (w * 4));
      if (full) gl.texSubImage2D(TEX, 0, 0, 0, w, full, RGBA, FLOAT, data, 0);
      const rest = texels - full * w;
      if (rest) {
        const tail = new Float32Array(rest * 4);
        tail.set(data.subarray(full * w * 4));
        gl.texSubImage2D(TEX, 0, 0, full, rest, 1, RGBA, FLOAT, tail, 0);
      }
      if (debug) check("upload");
      return true;
    },
    // the first n values of a texture, synchronously (undefined: context lost)
    read(t, w, n) {
      if (gl.isContextLost()) return undefined;
      const rows = Math.ceil(Math.ceil(n / 4) / w);
      const buf = new Float32Array(rows * w * 4);
      attach(t);
      gl.readPixels(0, 0, w, rows, RGBA, FLOAT, buf);
      if (debug) check("readPixels");
      return buf.subarray(0, n);
    },
    // an asynchronous read: readPixels into a pixel-pack buffer guarded by a fence, polled from timers (the
    // page keeps running meanwhile); resolves to the first n values, or undefined when the context is lost
    readAsync(t, w, n) {
      if (gl.isContextLost()) return Promise.resolve(undefined);
      const rows = Math.ceil(Math.ceil(n / 4) / w);
      const bytes = rows * w * 16;
      const buf = gl.createBuffer();
      gl.bindBuffer(PACK, buf);
      gl.bufferData(PACK, bytes, gl.STREAM_READ);
      attach(t);
      gl.readPixels(0, 0, w, rows, RGBA, FLOAT, 0);
      gl.bindBuffer(PACK, null);
      const sync = gl.fenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0);
      gl.flush();
      if (debug) check("readAsync");
      return new Promise((resolve) => {
        let delay = 0;
        const poll = () => {
          if (gl.isContextLost()) { resolve(undefined); return; }
          const s = gl.clientWaitSync(sync, 0, 0);
          if (s === gl.ALREADY_SIGNALED || s === gl.CONDITION_SATISFIED || s === gl.WAIT_FAILED) {
            const out = new Float32Array(bytes / 4);
            gl.bindBuffer(PACK, buf);
            gl.getBufferSubData(PACK, 0, out);
            gl.bindBuffer(PACK, null);
            gl.deleteBuffer(buf);
            gl.deleteSync(sync);
            resolve(gl.isContextLost() ? undefined : out.subarray(0, n));
            return;
          }
          delay = Math.min(delay + 1, 8);  // cheap timer polls; a busy loop would steal the renderer's CPU
          setTimeout(poll, delay);
        };
        poll();
      });
    },
    finish() { gl.finish(); },
    lost() { return gl.isContextLost(); },
  };
}
"""

#: the probe values of the float32 render test: outside [0, 1] and beyond half-float range and precision.
_PROBE = (1.5, -2.25, 65536.0, 3.0e-5)

_PROBE_FRAGMENT = """#version 300 es
precision highp float;
out vec4 color;
void main() { color = vec4(1.5, -2.25, 65536.0, 3.0e-5); }
"""


class ContextLostError(RuntimeError):
    """The WebGL context was lost: every tensor held in its textures is gone."""


def lost_message(what: str) -> str:
    """The error text for an operation attempted after the context was lost."""
    return (
        f"webgl backend: the WebGL context was lost, cannot {what}. Tensors that lived in GPU textures are "
        "gone; switch backends (await tf.set_backend('cpu')) and recreate them."
    )


def create_canvas_context(version: int = 2) -> tuple[Any, Any]:
    """(canvas, context) for a fresh offscreen WebGL context; context is None where the browser has none."""
    if not bridge.available():
        return None, None
    js = bridge.js
    canvas = (
        js.OffscreenCanvas.new(1, 1)
        if hasattr(js, "OffscreenCanvas")
        else js.document.createElement("canvas")
    )
    gl = canvas.getContext("webgl2" if version == 2 else "webgl", bridge.js_object(CONTEXT_OPTIONS))
    return canvas, gl


def release(gl: Any) -> None:
    """Give a context back to the browser now (browsers cap the number of live contexts)."""
    ext = gl.getExtension("WEBGL_lose_context")
    if ext:
        ext.loseContext()


def render_float32_works(gl: Any) -> bool:
    """Draw with a shader into an RGBA32F texture and read it back: True only if float32 values survive."""
    if not gl.getExtension("EXT_color_buffer_float"):
        return False
    tex = gl.createTexture()
    fb = gl.createFramebuffer()
    vs = fs = prog = None
    try:
        gl.bindTexture(gl.TEXTURE_2D, tex)
        gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32F, 1, 1)
        gl.bindFramebuffer(gl.FRAMEBUFFER, fb)
        gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0)
        if gl.checkFramebufferStatus(gl.FRAMEBUFFER) != gl.FRAMEBUFFER_COMPLETE:
            return False
        vs, fs = gl.createShader(gl.VERTEX_SHADER), gl.createShader(gl.FRAGMENT_SHADER)
        for shader, src in ((vs, VERTEX_SHADER), (fs, _PROBE_FRAGMENT)):
            gl.shaderSource(shader, src)
            gl.compileShader(shader)
        prog = gl.createProgram()
        gl.attachShader(prog, vs)
        gl.attachShader(prog, fs)
        gl.linkProgram(prog)
        if not gl.getProgramParameter(prog, gl.LINK_STATUS):
            return False
        gl.useProgram(prog)
        gl.viewport(0, 0, 1, 1)
        gl.drawArrays(gl.TRIANGLES, 0, 3)
        out = bridge.js.Float32Array.new(4)
        gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.FLOAT, out)
        got = out.to_py().tolist()
        return all(abs(g - p) <= abs(p) * 1e-6 for g, p in zip(got, _PROBE, strict=True))
    finally:
        gl.useProgram(None)
        gl.bindFramebuffer(gl.FRAMEBUFFER, None)
        for obj, delete in ((prog, gl.deleteProgram), (vs, gl.deleteShader), (fs, gl.deleteShader)):
            if obj is not None:
                delete(obj)
        gl.deleteFramebuffer(fb)
        gl.deleteTexture(tex)


class GLContext:
    """The backend's WebGL2 context: float format chosen by a real render test, JS helper, loss tracking."""

    def __init__(self, force_f16: bool = False) -> None:
        canvas, gl = create_canvas_context(2)
        if not gl:
            raise RuntimeError("webgl backend: WebGL2 is not available in this browser")
        self.canvas, self.gl = canvas, gl
        self.lost = False
        from pyodide.ffi import create_proxy  # type: ignore[import-not-found]

        self._on_lost = create_proxy(self._handle_lost)
        canvas.addEventListener("webglcontextlost", self._on_lost)
        self.max_texture_size = int(gl.getParameter(gl.MAX_TEXTURE_SIZE))
        self.max_texture_units = int(gl.getParameter(gl.MAX_TEXTURE_IMAGE_UNITS))
        self.render_float32 = (not force_f16) and render_float32_works(gl)
        if self.render_float32:
            self.internal_format = int(gl.RGBA32F)
            self.bytes_per_texel = 16
        else:
            if not (
                gl.getExtension("EXT_color_buffer_float") or gl.getExtension("EXT_color_buffer_half_float")
            ):
                raise RuntimeError("webgl backend: neither float32 nor float16 textures are renderable here")
            self.internal_format = int(gl.RGBA16F)
            self.bytes_per_texel = 8
        helper = bridge.js.eval(_HELPER_JS)(gl, bool(ENV.get("DEBUG")), not self.render_float32)
        self.helper = helper
        # bound once: attribute lookups on JS proxies cost more than the calls themselves
        self.run = helper.run
        self.run4 = helper.run4
        self.alloc = helper.alloc
        self.free = helper.free
        self.upload_js = helper.upload
        self.read_js = helper.read
        self.read_async = helper.readAsync
        self.compile_js = helper.compile
        self.finish = helper.finish
        self.is_lost_js = helper.lost

    def _handle_lost(self, event: Any) -> None:
        self.lost = True

    def is_lost(self) -> bool:
        """True once the context is gone (the event may not have fired yet: ask GL too)."""
        if not self.lost and self.is_lost_js():
            self.lost = True
        return self.lost

    def check(self, what: str) -> None:
        """Raise ContextLostError when the context is lost."""
        if self.lost or self.is_lost_js():
            self.lost = True
            raise ContextLostError(lost_message(what))

    def dispose(self) -> None:
        """Release the context and the event listener."""
        try:
            self.canvas.removeEventListener("webglcontextlost", self._on_lost)
            self._on_lost.destroy()
        finally:
            if not self.lost:
                release(self.gl)
            self.lost = True
