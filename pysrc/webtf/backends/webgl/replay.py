"""Compiled replay on webgl: a captured model run (models/capture.py) as ONE generated JS function of draws.

Planning: the capture is replayed once from Python with the backend's draws recorded instead of drawn (no
GPU work), together with the textures each kernel acquired and released and the host values uploaded.
Every value of the run (an intermediate texture, from its acquisition to its release) gets a texture slot;
values of one texture size whose live ranges do not overlap share a slot, so a run needs no pool traffic.
Numbers an op turned into tensors (a BatchNorm epsilon) are uploaded once into slots of their own.

A run: Python uploads the feeds (when they are still on the host) and acquires a pooled texture per
output, then ONE JS call draws every kernel in order through the context helper's `run` (programs, input
textures, uniforms: the same draws as an eager run) and the outputs become engine tensors. A cpu twin that
reads constants only (weights, made numbers, other such results) is fine: its results are uploaded once
into constant slots. Not compiled (REFUSALS says why; the Python replay goes on): a cpu twin on values of
the run, a kernel reading a texture of the run back, an output sharing another output's or a weight's
texture, a kernel keeping a texture it made.
"""

from __future__ import annotations

import weakref
from typing import Any

from ...engine import ENGINE
from ...models.capture import _tensors, program_outputs
from ...tensor import Tensor
from ..base import TensorInfo, new_data_id
from ..js import js_number
from .context import ContextLostError, lost_message
from .textures import TexData, as_float32

#: why captures were not compiled: reason -> count
REFUSALS: dict[str, int] = {}
#: why compiled programs stopped applying: reason -> count
DROPS: dict[str, int] = {}


class _Value:
    """A texture acquired during the planning run: its size, live range and role."""

    __slots__ = ("w", "h", "start", "end", "const", "slot")

    def __init__(self, w: int, h: int, start: int) -> None:
        self.w, self.h, self.start = w, h, start
        self.end: int | None = None  # the event index of its release; None: alive at the end
        self.const: Any = None  # host values uploaded into it (a made number), else None
        self.slot = -1


class _Recorder:
    """The draws, texture acquisitions and releases of one planning run (installed by record())."""

    def __init__(self, backend: Any) -> None:
        self.backend = backend
        self.events = 0
        self.draws: list[tuple] = []  # (helper method, program handle, output refs, w, h, input refs, uniforms)
        self.values: list[_Value] = []
        self.holding: dict[int, int] = {}  # id(texture) -> index of the value holding it now
        self.textures: dict[int, Any] = {}  # id(texture) -> texture, for the weights' and feeds'
        self.refused: str | None = None
        self.pending: Any = None  # the host values of the upload in progress
        self.outside: set[int] = set()  # values that are a feed's or a weight's texture (uploaded now)
        self.constant: set[int] = set()  # data ids whose values are the same every run
        self.const_kernel = False  # the kernel running reads constants only (a cpu twin may run it then)

    def begin(self, impl: Any, inputs: Any, attrs: Any) -> None:
        ins = () if inputs is None else inputs.values() if isinstance(inputs, dict) else inputs
        self.const_kernel = all(t.data_id in self.constant for t in _tensors(ins))

    def end(self, outs: list[Tensor]) -> None:
        if self.const_kernel:
            self.constant.update(t.data_id for t in outs)

    def refuse(self, why: str) -> None:
        if self.refused is None:
            self.refused = why

    def acquire(self, fn: Any) -> Any:
        def call(w: int, h: int) -> Any:
            tex = fn(w, h)
            self.holding[id(tex)] = len(self.values)
            value = _Value(w, h, self.events)
            if self.pending is not None:
                value.const, self.pending = self.pending, None
            self.values.append(value)
            self.events += 1
            return tex

        return call

    def release(self, fn: Any) -> Any:
        def call(tex: Any, w: int, h: int) -> None:
            i = self.holding.pop(id(tex), None)
            if i is not None:
                self.values[i].end = self.events
                self.events += 1
            fn(tex, w, h)

        return call

    def ref(self, tex: Any) -> Any:
        """A draw's texture argument: ("v", value index) for a texture of the run, else ("x", id)."""
        i = self.holding.get(id(tex))
        if i is not None:
            return ("v", i)
        self.textures[id(tex)] = tex
        return ("x", id(tex))

    def draw(self, method: str, prog: Any, outs: tuple, w: int, h: int, nt: int, rest: tuple) -> bool:
        refs = [self.ref(t) for t in outs]
        if any(r[0] != "v" for r in refs):
            self.refuse("a kernel drew into a texture it did not acquire")
        self.draws.append((method, prog, refs, w, h, [self.ref(t) for t in rest[:nt]], rest[nt:]))
        self.events += 1
        return True  # recorded, not drawn: the program draws

    def run(self, prog: Any, tex: Any, w: int, h: int, nt: int, *rest: Any) -> bool:
        return self.draw("run", prog, (tex,), w, h, nt, rest)

    def run4(self, prog: Any, o0: Any, o1: Any, o2: Any, o3: Any, w: int, h: int, nt: int, *rest: Any) -> bool:
        return self.draw("run4", prog, (o0, o1, o2, o3), w, h, nt, rest)

    def upload(self, fn: Any, made: set[int], known: set[int]) -> Any:
        def call(rec: TexData) -> Any:
            if id(rec) in made:  # a number an op made: its values become a constant slot
                self.pending = as_float32(rec.values)[:]
            elif id(rec) not in known:
                self.refuse("a kernel's output was computed on the host")
            tex = fn(rec)
            if id(rec) in known:  # a feed or a weight: not a texture of the run
                i = self.holding.pop(id(tex))
                self.outside.add(i)
                self.values[i].end = self.values[i].start
            return tex

        return call


def record(capture: Any, feeds: list[Tensor]) -> tuple[_Recorder, list[Tensor] | None]:
    """Replay `capture` on `feeds` with the draws recorded, not drawn; the outputs (values undefined) are
    returned for the caller to dispose."""
    backend = capture.backend
    rec = _Recorder(backend)
    known = {id(backend.data.get(t.data_id)) for t in [*feeds, *capture.externals]}
    rec.constant.update(t.data_id for t in capture.externals)
    made: set[int] = set()  # the TexData of host values that are the same every run
    write, output, download = backend.write, backend.output, backend._download

    def write_made(values: Any, shape: Any, dtype: str) -> int:
        data_id = write(values, shape, dtype)
        made.add(id(backend.data[data_id]))
        rec.constant.add(data_id)
        return data_id

    def host_output(values: Any, shape: Any, dtype: str) -> TensorInfo:
        if not rec.const_kernel:  # a cpu twin on values of this run: they change from run to run
            rec.refuse("a kernel ran on the host on values of the run")
        info = output(values, shape, dtype)
        made.add(id(backend.data[info.data_id]))
        return info

    def read_back(data: TexData) -> Any:
        if id(data.tex) in rec.holding:  # a texture of the run: not drawn while planning
            rec.refuse("a kernel read a texture of the run back")
        return download(data)

    pool = backend.pool
    patched = [
        (backend, "_run", rec.run),
        (backend, "_run4", rec.run4),
        (backend, "_acquire", rec.acquire(backend._acquire)),
        (backend, "_upload", rec.upload(backend._upload, made, known)),
        (backend, "_download", read_back),
        (backend, "output", host_output),
        (backend, "write", write_made),
        (pool, "release", rec.release(pool.release)),
    ]
    saved = [(obj, name, obj.__dict__.get(name)) for obj, name, _ in patched]
    for obj, name, fn in patched:
        setattr(obj, name, fn)
    try:
        outs = capture.replay(feeds, rec)
    finally:
        for obj, name, old in saved:
            if old is None:
                delattr(obj, name)
            else:
                setattr(obj, name, old)
    if outs is None:
        rec.refuse("the replay did not match its recording")
    return rec, outs


def plan(values: list[_Value], keep: set[int]) -> list[tuple[int, int]]:
    """Give each value a slot (sets value.slot); values of one size whose live ranges do not overlap share.
    `keep`: values that never share (outputs, constants). Returns the slots' sizes."""
    slots: list[tuple[int, int]] = []
    free_at: list[float] = []  # per slot: the event after which it is free
    for i, v in enumerate(values):  # in the order of their acquisition, i.e. of their starts
        if i in keep:
            continue
        # the slot freed last, as the pool would hand out (its texels are likelier in a CPU renderer's caches)
        fits = [s for s, size in enumerate(slots) if size == (v.w, v.h) and free_at[s] < v.start]
        if fits:
            s = max(fits, key=free_at.__getitem__)
        else:
            s = len(slots)
            slots.append((v.w, v.h))
            free_at.append(0)
        v.slot = s
        free_at[s] = float("inf") if v.end is None else v.end
    return slots


class Compiled:
    """One capture as one JS function of draws over planned texture slots (see the module docstring)."""

    def __init__(self, capture: Any, rec: _Recorder, feeds: list[Tensor], outs: list[Tensor]) -> None:
        backend = self.backend = capture.backend
        self.ctx = backend.ctx
        self.externals = capture.externals
        self.external_ids = [t.data_id for t in capture.externals]  # an assign() gives a variable a new id
        self.guarded = 0  # (as wasm's: runs a NaN check sent the Python way; webgl kernels have none)
        self.retry = False
        values = rec.values
        given = len(feeds) + len(capture.externals)
        self.outputs: list[tuple] = []  # ("given", i) | ("made", value index, shape, dtype)
        for i, t in zip(capture.result, outs, strict=True):
            if i < given:
                self.outputs.append(("given", i))
                continue
            tex = backend.data[t.data_id].tex if t.data_id in backend.data else None
            v = rec.holding.get(id(tex)) if tex is not None else None
            if v is None or any(o[0] == "made" and o[1] == v for o in self.outputs):
                raise _Refused("an output shares a weight's, a feed's or another output's texture")
            self.outputs.append(("made", v, t.shape, t.dtype))
        out_values = {o[1]: k for k, o in enumerate(o for o in self.outputs if o[0] == "made")}
        if any(v.end is None and i not in out_values for i, v in enumerate(values)):
            raise _Refused("a kernel kept a texture it made")
        consts = sorted(i for i, v in enumerate(values) if v.const is not None)
        sizes = plan(values, {*out_values, *consts, *rec.outside})
        for n, i in enumerate(consts):
            values[i].slot = len(sizes) + n
        feed_tex = {}
        for k, t in enumerate(feeds):
            r = backend.data.get(t.data_id)
            if r is not None and r.tex is not None:
                feed_tex.setdefault(id(r.tex), k)
        self.weights: list[tuple[int, Any]] = []  # (data id, texture) the program draws from
        weight_index: dict[int, int] = {}
        for t in capture.externals:
            r = backend.data.get(t.data_id)
            if r is not None and r.tex is not None and id(r.tex) in rec.textures:
                if weight_index.setdefault(id(r.tex), len(self.weights)) == len(self.weights):
                    self.weights.append((t.data_id, r.tex))
        self.feeds_used = sorted(set(feed_tex.values()))
        feed_arg = {k: f"F{n}" for n, k in enumerate(self.feeds_used)}

        def name(ref: tuple) -> str:
            if ref[0] == "v":
                k = out_values.get(ref[1])
                return f"O{k}" if k is not None else f"T[{values[ref[1]].slot}]"
            if ref[1] in feed_tex:
                return feed_arg[feed_tex[ref[1]]]
            if ref[1] in weight_index:
                return f"W[{weight_index[ref[1]]}]"
            raise _Refused("a kernel read a texture that is neither a weight, a feed nor its own")

        programs: list[Any] = []
        prog_index: dict[int, int] = {}
        body = []
        for method, prog, outs, w, h, ins, uniforms in rec.draws:
            p = prog_index.setdefault(id(prog), len(programs))
            if p == len(programs):
                programs.append(prog)
            args = [f"P[{p}]", *map(name, outs), str(w), str(h), str(len(ins)), *map(name, ins)]
            args += [js_number(u) for u in uniforms]
            body.append(f"if (!{method}({', '.join(args)})) return false;")
        params = [*feed_arg.values(), *(f"O{k}" for k in range(len(out_values)))]
        source = (
            "(H, P, T, W) => { const run = H.run.bind(H), run4 = H.run4.bind(H); return ("
            + ", ".join(params)
            + ") => {\n"
            + "\n".join(body)
            + "\nreturn true; }; }"
        )
        self.draws = len(body)
        self.textures = len(values) - len(rec.outside)  # textures the run used (the slots share them)
        pool = backend.pool
        owned = [(pool.acquire(w, h), w, h) for w, h in sizes]
        for i in consts:
            v = values[i]
            tex = pool.acquire(v.w, v.h)
            owned.append((tex, v.w, v.h))
            if v.const and not self.ctx.upload_js(tex, v.w, _js_floats(v.const)):
                self.ctx.lost = True
        self.owned = owned  # (texture, w, h): the slots, then the constants
        self.num_slots = len(sizes)
        self._finalizer = weakref.finalize(self, _release, backend, owned)
        from pyodide.code import run_js  # type: ignore[import-not-found]
        from pyodide.ffi import to_js  # type: ignore[import-not-found]

        self.program = run_js(source)(
            self.ctx.helper,
            to_js(programs),
            to_js([o[0] for o in owned]),
            to_js([t for _, t in self.weights]),
        )
        self.made = [(values[o[1]].w, values[o[1]].h, o[2], o[3]) for o in self.outputs if o[0] == "made"]

    def run(self, feeds: list[Tensor]) -> list[Tensor] | None:
        """The outputs for new feeds of the planned signature, or None when the program no longer applies."""
        backend = self.backend
        if ENGINE._backend is not backend or any(t.is_disposed_internal for t in self.externals):
            return _drop("the backend changed or a weight was disposed")
        data = backend.data
        if [t.data_id for t in self.externals] != self.external_ids:
            self.retry = True  # constants baked from the old values: a new plan bakes the new ones
            return _drop("a weight was assigned a new value")
        for data_id, tex in self.weights:
            r = data.get(data_id)
            if r is None or r.tex is not tex:
                self.retry = True
                return _drop("a weight moved to another texture")
        if self.ctx.lost:
            raise ContextLostError(lost_message("run a compiled model"))
        texture, acquire = backend.texture, backend._acquire
        args = [texture(feeds[k].data_id) for k in self.feeds_used]
        outs = [(acquire(w, h), w, h, shape, dtype) for w, h, shape, dtype in self.made]
        if not self.program(*args, *(o[0] for o in outs)):
            for tex, w, h, _, _ in outs:
                backend.pool.release(tex, w, h)
            self.ctx.lost = True
            raise ContextLostError(lost_message("run a compiled model"))

        def new_tensors() -> Any:
            for tex, w, h, shape, dtype in outs:
                rec = TexData(None, _size(shape), dtype)
                rec.tex, rec.w, rec.h = tex, w, h
                data_id = new_data_id()
                data[data_id] = rec
                yield ENGINE.wrap(TensorInfo(data_id, shape, dtype), backend)

        return program_outputs(self.outputs, feeds, self.externals, new_tensors())

    def release(self) -> None:
        """Return the slots' textures to the pool (idempotent)."""
        self._finalizer()


class _Refused(Exception):
    """The planning run cannot become a program (the message says why)."""


def _size(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _js_floats(values: Any) -> Any:
    from pyodide.ffi import to_js  # type: ignore[import-not-found]

    return to_js(memoryview(values))


def _drop(why: str) -> None:
    DROPS[why] = DROPS.get(why, 0) + 1


def _release(backend: Any, textures: list[tuple]) -> None:
    if backend.ctx.lost or getattr(backend, "_disposed", False):
        return
    for tex, w, h in textures:
        backend.pool.release(tex, w, h)


def compile_capture(capture: Any, feeds: list[Tensor]) -> Compiled | None:
    """The capture as one JS function of draws, planned on a recorded (not drawn) run of `feeds`; None when it
    cannot be (REFUSALS says why)."""
    rec, outs = record(capture, feeds)
    why = rec.refused
    try:
        if why is None:
            return Compiled(capture, rec, feeds, outs)
    except _Refused as e:
        why = str(e)
    finally:
        for t in outs or ():
            if not any(t is f for f in feeds) and not any(t is x for x in capture.externals):
                t.dispose()
    REFUSALS[why] = REFUSALS.get(why, 0) + 1
    return None
