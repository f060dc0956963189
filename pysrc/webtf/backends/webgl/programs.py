"""GLSL programs: sources assembled from shaders/*.glsl, compiled once per variant, cached by key.

A program's fragment shader = shaders/header.glsl (helpers: texel/element fetch by flat index, NaN test)
+ shaders/<Kernel>.glsl (the kernel's `compute4` or `compute`; a line `//#include NAME` pulls in
shaders/NAME.glsl, e.g. the fused-op epilogue) + shaders/footer.glsl (main: one fragment
computes one output texel, int32 outputs are rounded). `{{NAME}}` holes are filled by Python with the
facts that must be compile-time (an expression, a vectorized variant, the number of inputs); shapes,
strides and sizes are uniforms (int array uI, float array uF), so one variant serves every shape.
The cache key is chosen by each kernel: its name plus exactly the facts that change the source.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .context import VERTEX_SHADER

_SOURCES: dict[str, str] = {}


def _read_shader(name: str) -> str:
    try:  # installed wheel: webtf/shaders/<name>.glsl
        from importlib.resources import files

        path = files("webtf").joinpath("shaders", f"{name}.glsl")
        if path.is_file():
            return path.read_text()
    except (ModuleNotFoundError, FileNotFoundError):
        pass
    return (Path(__file__).resolve().parents[4] / "shaders" / f"{name}.glsl").read_text()


def shader_source(name: str) -> str:
    """The text of shaders/<name>.glsl (read once)."""
    text = _SOURCES.get(name)
    if text is None:
        text = _SOURCES[name] = _read_shader(name)
    return text


def fill_holes(text: str, holes: dict[str, Any]) -> str:
    """Replace each {{NAME}} in text by str(holes[NAME])."""
    for name, value in holes.items():
        text = text.replace("{{" + name + "}}", str(value))
    if "{{" in text:
        start = text.index("{{")
        raise ValueError(f"unfilled shader hole {text[start : text.index('}}', start) + 2]}")
    return text


def expand_includes(text: str) -> str:
    """Replace each line `//#include NAME` by the text of shaders/NAME.glsl."""
    if "//#include " not in text:
        return text
    lines = []
    for line in text.splitlines():
        if line.startswith("//#include "):
            name = line.split()[1]
            lines.append(f"// ---- {name}.glsl\n{expand_includes(shader_source(name))}")
        else:
            lines.append(line)
    return "\n".join(lines)


def assemble(
    kernel: str,
    ni: int,
    nf: int = 0,
    defines: Iterable[str] = (),
    holes: dict[str, Any] | None = None,
    int_output: bool = False,
) -> str:
    """The full fragment shader source of a kernel variant."""
    lines = [f"#define {d}" for d in defines]
    if int_output:
        lines.append("#define INT_OUTPUT")
    head = fill_holes(
        shader_source("header"),
        {"NI": max(1, ni), "UF": f"uniform float uF[{nf}];" if nf else "", "DEFINES": "\n".join(lines)},
    )
    body = fill_holes(expand_includes(shader_source(kernel)), holes or {})
    return f"{head}\n// ---- {kernel}.glsl\n{body}\n// ---- footer.glsl\n{shader_source('footer')}"


class Program:
    """A compiled program: its JS handle and how many int/float uniforms and input textures it takes."""

    __slots__ = ("js", "ni", "nf", "samplers", "key", "source")

    def __init__(self, js: Any, ni: int, nf: int, samplers: Sequence[str], key: Any, source: str) -> None:
        self.js = js
        self.ni = ni
        self.nf = nf
        self.samplers = tuple(samplers)
        self.key = key
        self.source = source


class ProgramCache:
    """Compiled programs by key; `get` is the hot path (a dict lookup), `build` compiles a missing one."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.programs: dict[Any, Program] = {}
        self.get = self.programs.get
        self.output_defines = () if ctx.render_float32 else ("HALF_OUTPUT",)

    def __len__(self) -> int:
        return len(self.programs)

    def build(
        self,
        key: Any,
        kernel: str,
        samplers: Sequence[str],
        ni: int,
        nf: int = 0,
        defines: Iterable[str] = (),
        holes: dict[str, Any] | None = None,
        int_output: bool = False,
    ) -> Program:
        """Compile (once) the variant of `kernel` named by `key`. ni counts uI[1:] (uI[0] is the output shift)."""
        prog = self.programs.get(key)
        if prog is not None:
            return prog
        source = assemble(kernel, ni + 1, nf, (*defines, *self.output_defines), holes, int_output)
        self.ctx.check("compile a shader")
        from pyodide.ffi import to_js  # type: ignore[import-not-found]

        try:
            handle = self.ctx.compile_js(VERTEX_SHADER, source, to_js(list(samplers)), max(1, ni + 1), nf)
        except Exception as e:
            numbered = "\n".join(f"{n + 1:4d} {line}" for n, line in enumerate(source.splitlines()))
            raise RuntimeError(f"webgl backend: kernel {kernel} {key!r}: {e}\n{numbered}") from None
        if handle is None:
            self.ctx.check("compile a shader")
        prog = self.programs[key] = Program(handle, max(1, ni + 1), nf, samplers, key, source)
        return prog

    def clear(self) -> None:
        """Forget every program (their GL objects go with the context)."""
        self.programs.clear()
