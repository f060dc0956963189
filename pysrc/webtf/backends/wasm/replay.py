"""Compiled replay on wasm: a captured model run (models/capture.py) as ONE generated JS function.

Planning: the capture is replayed once from Python on copies of the feeds while every call into JS is
recorded at the export level (export or heap helper, with its integer / float arguments), with the tensor
blocks made, when each is freed and the heap writes of tensor values. The int arrays the exports take by
pointer (shapes, strides, tensor id lists) are snapshotted at call time into a constant section.

The static plan: every block of the run (feed copies, intermediates, outputs) gets an offset in ONE arena
malloc'd once per capture, from its live range in the recorded call order; blocks whose ranges do not
overlap share bytes, and an element-wise export's output takes the bytes of an input of its size that dies at
that call (in_place: computed in place, in cache). The blocks' data ids stay registered with the binary at
their arena places, so every export argument is a constant, and XNNPACK's operators (cached by the weights'
ids) are reused across runs.
A weight-like argument that is itself a block of the run (a computed filter, bias or matmul b) is
unregistered and registered again before its call, so its cached operator is rebuilt as an eager run would.

A run: one JS call copies the constants and the feeds into their places, calls the exports in order,
mallocs a fresh block per output, copies the outputs there and returns their pointers. A kernel that reads a
block of the run from Python (a cpu fallback) stays a Python step between JS segments; a kernel's NaN check
(has_nan) or native value check (any_true: GatherNd's index range, int32 FloorDiv's exact range) stays in the
program as a guard that sends a run failing it the Python way. Not compiled (the Python replay
goes on; REFUSALS says why): heap functions, exports that malloc for Python or return values, outputs
sharing a weight's buffer.
"""

from __future__ import annotations

import math
import weakref
from array import array
from typing import Any

from ...engine import ENGINE
from ...models.capture import _tensors, program_outputs
from ...tensor import Tensor
from ..base import TensorInfo, new_data_id
from ..js import js_number
from .abi import parse_args
from .backend import _ARENA_BYTES

_ALIGN = 64
_SLACK = 64  # bytes after the last place: XNNPACK's vector loads may read a little past a buffer
#: exports whose XNNPACK operator is cached by the ids of these arguments (the binary's operator caches)
_CACHED_BY = {
    "Conv2D": ("filter",),
    "DepthwiseConv2dNative": ("filter",),
    "FusedConv2D": ("filter", "bias", "prelu"),
    "FusedDepthwiseConv2D": ("filter", "bias", "prelu"),
    "Conv2DBackpropInput": ("filter",),
    "Conv3D": ("filter",),
    "BatchMatMul": ("b",),
    "_FusedMatMul": ("b", "bias", "prelu"),
    "Prelu": ("alpha",),
}
_POINTER_KINDS = ("shape_ptr", "ints_ptr", "ids_ptr")
_ID_KINDS = ("tensor_id", "opt_tensor_id")
#: the backend's heap helpers: (attribute, positions of tensor pointers, position of an int array pointer)
_HELPERS = (("_copy", (0, 1), 3), ("_gather", (0, 1, 5), None), ("_convert", (0, 1), None))
#: exports computing each output element from the same element of each full-size input only (plain loops or
#: XNNPACK's element-wise kernels, which load a vector of the inputs before storing it): the output may take
#: the bytes of an input of its size that dies at the call (planned in place). Prelu: x only (alpha is packed)
_ELEMENTWISE = frozenset(
    {
        *("Abs", "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Ceil", "Cos", "Cosh", "Elu", "Erf"),
        *("Exp", "Expm1", "Floor", "Log", "Log1p", "Neg", "Reciprocal", "Relu", "Relu6", "Round", "Rsqrt"),
        *("Selu", "Sign", "Sin", "Sinh", "Softplus", "Sqrt", "Square", "Tan", "Tanh", "Sigmoid", "LeakyRelu"),
        *("Step", "ClipByValue", "Add", "Sub", "Multiply", "RealDiv", "Maximum", "Minimum", "Pow"),
        *("SquaredDifference", "Prelu"),
    }
)


#: why captures were not compiled: reason -> count (for diagnosis; see the module docstring)
REFUSALS: dict[str, int] = {}
#: True: programs compiled from now on time each call (globalThis.webtfReplayProfile: name -> [ms, calls,
#: longest call's ms])
PROFILE = False
#: why compiled programs stopped applying: reason -> count
DROPS: dict[str, int] = {}
#: False: plan no element-wise output into a dying input's bytes (for comparisons; see in_place)
INPLACE = True


class _Recorder:
    """The calls, blocks and writes of one planning run (installed on a backend by record())."""

    def __init__(self, backend: Any) -> None:
        self.backend = backend
        self.module = backend.module
        # ("call", fn, args, refresh ids, name, input ids, output ids) | ("write", block, offset, bytes) |
        # ("python", impl, inputs, attrs, output data ids) | ("guard", address)
        self.cmds: list[tuple] = []
        self.blocks: dict[int, list] = {}  # data id -> [ptr, nbytes, size, start, end or None]
        self.live: dict[int, list] = {}  # blocks not yet freed
        self.pinned: dict[int, int] = {}  # data id -> address of the weights whose addresses calls take
        self.consts: dict[bytes, int] = {}  # int arrays -> their offset in the constant section
        self.const_size = 0
        self.depth = 0  # > 0 while an export runs (its import callbacks' writes are its own)
        self.refused: str | None = None
        self.kernel: tuple | None = None  # (impl, inputs, attrs, first command) of the kernel running
        self.python = False  # the kernel running read a block of the run: it becomes a Python step
        self.outputs: list[tuple] = []  # ("given", capture value index) | ("made", data id, shape, dtype)

    def refuse(self, why: str) -> None:
        if self.refused is None:
            self.refused = why

    def where(self, ptr: int) -> tuple[int, int] | None:
        """(data id, offset) of the run block holding heap address `ptr`, or None."""
        for data_id, (p, n, *_) in self.live.items():
            if p <= ptr < p + n or ptr == p:
                return data_id, ptr - p
        return None

    def ints(self, ptr: int) -> tuple | None:
        """The int array at `ptr` (the backend's ints cache holds it), or None."""
        # the longest: an empty array takes no bytes, so it shares its pointer with the next one cached
        return max((k for k, p in self.backend._ints_cache.items() if p == ptr), key=len, default=None)

    def const(self, ptr: int) -> Any:
        """An int array pointer argument: the array in the constant section."""
        if not ptr:
            return 0
        key = self.ints(ptr)
        if key is None:
            self.refuse("an int array outside the backend's ints cache")
            return ptr
        raw = array("i", key).tobytes()
        off = self.consts.get(raw)
        if off is None:
            off = self.consts[raw] = self.const_size
            self.const_size += (len(raw) + 7) & ~7
        return ("const", off)

    def pointer(self, ptr: int) -> Any:
        """A tensor pointer argument: relocated when it is in a block of the run, else kept (a weight's, whose
        address the program then checks before each run)."""
        got = self.where(ptr)
        if got is not None:
            return ("block", *got)
        for data_id, (p, n, _) in self.backend.data.items():
            if p <= ptr < p + n or p == ptr:
                self.pinned[data_id] = p
                return ptr
        self.refuse(f"a pointer {ptr} outside every tensor")
        return ptr

    def scratch(self) -> tuple[int, ...]:
        """The ids of has_nan's scratch buffers (the NaN checks write them)."""
        b = self.backend
        return (b._any.data_id, b._flags.data_id if b._flags is not None else 0)

    def begin(self, impl: Any, inputs: Any, attrs: Any) -> None:
        """Capture.replay's hook: a kernel starts."""
        self.kernel = (impl, inputs, attrs, len(self.cmds))
        self.python = False

    def end(self, outs: list[Tensor]) -> None:
        """Capture.replay's hook: a kernel ended with `outs`. A kernel that read a block of the run from
        Python becomes one Python step in place of the calls it made."""
        impl, inputs, attrs, first = self.kernel  # type: ignore[misc]
        self.kernel = None
        if not self.python:
            return
        if impl is None:
            self.refuse("a made tensor read a block of the run")
        if any(t.data_id not in self.blocks for t in outs):
            self.refuse("a Python step returned a weight's buffer")
        del self.cmds[first:]
        for block in self.blocks.values():
            if block[3] > first:
                block[3] = first
            if block[4] is not None and block[4] > first:
                block[4] = first + 1
        self.cmds.append(("python", impl, inputs, attrs, [t.data_id for t in outs]))

    def reads(self, ptr: int | None = None, data_id: int | None = None) -> None:
        """Python reads a block of the run (by address or id): the running kernel becomes a Python step."""
        if self.depth or (data_id not in self.live if ptr is None else self.where(ptr) is None):
            return
        if self.kernel is None:
            self.refuse("a block of the run read outside a kernel")
        self.python = True

    # ---- what record() installs -------------------------------------------------------------------
    def export(self, name: str, entry: dict[str, Any], fn: Any) -> Any:
        args = parse_args(entry)
        cached = _CACHED_BY.get(name, ())
        if entry.get("returns"):

            def refused(*a: Any) -> Any:
                self.refuse(f"the export {name} returns a value")
                return fn(*a)

            return refused

        def call(*a: Any) -> Any:
            values: list[Any] = list(a)
            refresh, ins, outs = [], [], []
            for i, (arg, kind) in enumerate(args):
                if kind in _POINTER_KINDS:
                    values[i] = self.const(a[i] & 0xFFFFFFFF)
                    if kind == "ids_ptr" and a[i]:
                        ins += self.ints(a[i] & 0xFFFFFFFF) or ()
                elif kind == "out_id":
                    outs.append(a[i])
                    if a[i] not in self.blocks and a[i] not in self.scratch():
                        self.refuse(f"the export {name} writes a tensor the run did not make")
                elif kind in _ID_KINDS:
                    ins.append(a[i])
                    if a[i] and a[i] not in self.blocks and a[i] not in self.backend.data:
                        self.refuse(f"the export {name} takes a tensor id the backend does not hold")
                    elif arg in cached and a[i] in self.blocks:
                        refresh.append(a[i])
            cmd = ("call", fn, values, refresh, name, ins, outs)
            self.cmds.append(cmd)
            since = self.module.log_count
            self.depth += 1
            try:
                return fn(*a)
            finally:
                self.depth -= 1
                if self.module.log_count != since and self.cmds[-1] is cmd:
                    self.cmds.pop()  # it failed (printed a warning): the kernel falls back instead

        return call

    def helper(self, name: str, fn: Any, pointers: tuple[int, ...], ints_at: int | None) -> Any:
        def call(*a: Any) -> Any:
            values: list[Any] = list(a)
            for i in pointers:
                values[i] = self.pointer(a[i] & 0xFFFFFFFF)
            if ints_at is not None:
                values[ints_at] = self.const(a[ints_at] & 0xFFFFFFFF)
            self.cmds.append(("call", fn, values, [], name, (), ()))
            return fn(*a)

        return call

    def alloc(self, fn: Any) -> Any:
        def call(data_id: int, size: int, nbytes: int, old_id: int, old_ptr: int) -> int:
            ptr = fn(data_id, size, nbytes, old_id, old_ptr)
            if ptr:
                block = [ptr & 0xFFFFFFFF, nbytes, size, len(self.cmds), None]
                self.blocks[data_id] = self.live[data_id] = block
            return ptr

        return call

    def dispose(self, fn: Any) -> Any:
        def call(data_id: int) -> None:
            block = self.live.pop(data_id, None)
            if block is not None:
                block[4] = len(self.cmds)
            fn(data_id)

        return call

    def write(self, fn: Any) -> Any:
        def call(ptr: int, data: Any) -> None:
            if not self.depth and ptr != self.backend._free_list:
                arena = self.backend._arena
                if not arena <= ptr < arena + _ARENA_BYTES:  # the ints arena: snapshotted per call instead
                    got = self.where(ptr)
                    if got is None:
                        self.refuse(f"a heap write at {ptr} outside the run's tensors")
                    else:
                        self.cmds.append(("write", *got, bytes(data)))
            fn(ptr, data)

        return call

    def heap_read(self, fn: Any) -> Any:
        def call(ptr: int, nbytes: int) -> Any:
            self.reads(ptr=ptr)
            return fn(ptr, nbytes)

        return call

    def read_sync(self, fn: Any) -> Any:
        def call(data_id: int) -> Any:
            self.reads(data_id=data_id)
            return fn(data_id)

        return call

    def has_nan(self, fn: Any) -> Any:
        """A kernel's NaN check (a Python branch on the values): the program re-checks it and stops at a NaN."""

        def call(x: Any) -> bool:
            got = fn(x)
            if not got and self.kernel is not None:
                backend = self.backend
                self.cmds.append(("guard", backend.data[backend._any.data_id][0]))
            return got

        return call

    def refusing(self, why: str, fn: Any) -> Any:
        def call(*a: Any) -> Any:
            self.refuse(why)
            return fn(*a)

        return call


def record(capture: Any, feeds: list[Tensor]) -> tuple[_Recorder, list[int]]:
    """Replay `capture` from Python on copies of `feeds` with every JS call recorded; returns the recorder and
    the data ids of the feed copies (the outputs are disposed: their ids become places of the plan)."""
    backend = capture.backend
    rec = _Recorder(backend)
    copies = []
    for t in feeds:
        info = backend.make_output(t.shape, t.dtype)
        ptr = backend.pointer(info)
        nbytes = backend.data[info.data_id][1]
        if nbytes:
            backend.copy(backend.pointer(t), ptr, (nbytes,), (1,), (1,), 1)
        rec.blocks[info.data_id] = rec.live[info.data_id] = [ptr, nbytes, math.prod(t.shape), -1, None]
        copies.append(ENGINE.wrap(info, backend))
    abi, module = backend.abi, backend.module
    patched: list[tuple[Any, str, Any]] = []  # (object or globals dict, name, original)

    def patch(obj: Any, name: str, new: Any) -> None:
        if isinstance(obj, dict):
            patched.append((obj, name, obj[name]))
            obj[name] = new
        else:
            patched.append((obj, name, obj.__dict__.get(name)))
            setattr(obj, name, new)

    for name, entry in backend.table["exports"].items():
        bound = getattr(abi, name)
        scope = getattr(bound, "__globals__", None)
        if scope is not None and "_fn" in scope:
            patch(scope, "_fn", rec.export(name, entry, scope["_fn"]))
        elif name not in ("dispose_data", "register_tensor"):  # plain exports: malloc / free for Python
            patch(abi, name, rec.refusing(f"a kernel called the export {name}", bound))
    for attr, pointers, ints_at in _HELPERS:
        patch(backend, attr, rec.helper(attr, getattr(backend, attr), pointers, ints_at))
    patch(backend, "_alloc", rec.alloc(backend._alloc))
    patch(backend, "binding", False)  # bound element-wise calls malloc in JS, out of the recorder's sight
    patch(backend, "_malloc", rec.refusing("a kernel malloc'd a block", backend._malloc))
    patch(backend, "dispose_data", rec.dispose(backend.dispose_data))
    patch(backend, "read_sync", rec.read_sync(backend.read_sync))
    patch(backend, "has_nan", rec.has_nan(backend.has_nan))
    patch(backend, "any_true", rec.has_nan(backend.any_true))
    patch(backend, "heap_function", rec.refusing("a kernel runs a heap function", backend.heap_function))
    patch(backend, "adopt", rec.refusing("a kernel adopted a block", backend.adopt))
    patch(module, "write", rec.write(module.write))
    patch(module, "read", rec.heap_read(module.read))
    outs = None
    try:
        try:
            outs = capture.replay(copies, rec)
        finally:
            for obj, name, old in reversed(patched):
                if isinstance(obj, dict):
                    obj[name] = old
                elif old is None:
                    delattr(obj, name)
                else:
                    setattr(obj, name, old)
        given = len(feeds) + len(capture.externals)
        if outs is None:
            rec.refuse("the replay did not match its recording")
        else:
            rec.outputs = [
                ("given", i) if i < given else ("made", t.data_id, t.shape, t.dtype)
                for i, t in zip(capture.result, outs, strict=True)
            ]
            kept = {o[1] for o in rec.outputs if o[0] == "made"}
            if not kept <= set(rec.blocks):
                rec.refuse("an output shares a weight's buffer")
            if set(rec.live) - kept - {t.data_id for t in copies}:
                rec.refuse("a kernel kept a block it made")
            for i, t in zip(capture.result, outs, strict=True):
                if i >= given:
                    t.dispose()
    finally:
        for t in copies:
            t.dispose()
    return rec, [t.data_id for t in copies]


def plan(blocks: dict[int, list], end: int) -> tuple[dict[int, int], int]:
    """Arena offsets for `blocks` (data id -> [ptr, nbytes, size, start, end or None: live to the end]):
    blocks whose live ranges [start, end) overlap never share bytes. Returns (offsets, arena size)."""
    spans = sorted(
        (
            (n, b[3], end + 1 if b[4] is None else max(b[4], b[3] + 1), i)
            for i, b in blocks.items()
            for n in [b[1]]
        ),
        reverse=True,
    )
    placed: list[tuple[int, int, int, int]] = []  # (offset, bytes, start, end)
    offsets: dict[int, int] = {}
    size = 0
    for nbytes, start, stop, data_id in spans:
        need = (nbytes + _ALIGN - 1) // _ALIGN * _ALIGN or _ALIGN
        at = 0
        for off, n, _, _ in sorted(p for p in placed if p[2] < stop and start < p[3]):
            if at + need <= off:
                break
            at = max(at, off + n)
        placed.append((at, need, start, stop))
        offsets[data_id] = at
        size = max(size, at + need)
    return offsets, size


def _uses(cmd: tuple) -> Any:
    """The data ids of the blocks a command reads or writes."""
    if cmd[0] == "call":
        yield from cmd[5]
        yield from cmd[6]
        yield from (v[1] for v in cmd[2] if isinstance(v, tuple) and v[0] == "block")
    elif cmd[0] == "write":
        yield cmd[1]
    elif cmd[0] == "python":
        yield from (t.data_id for t in _tensors(cmd[2].values() if isinstance(cmd[2], dict) else cmd[2]))
        yield from cmd[4]


def in_place(cmds: list[tuple], blocks: dict[int, list]) -> dict[int, int]:
    """Outputs planned in place: data id -> the block whose bytes it takes. An element-wise export's output
    (_ELEMENTWISE) takes an input's when that input has its byte size, is freed during the run, and no command
    after the call uses it, and no command before the call uses the output. Chains share one block."""
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for k, cmd in enumerate(cmds):
        for i in _uses(cmd):
            first.setdefault(i, k)
            last[i] = k
    alias: dict[int, int] = {}
    for k, cmd in enumerate(cmds):
        if not INPLACE or cmd[0] != "call" or cmd[4] not in _ELEMENTWISE or len(cmd[6]) != 1:
            continue
        out = blocks.get(cmd[6][0])
        if out is None or not out[1] or first[cmd[6][0]] != k:
            continue
        for x in cmd[5][:1] if cmd[4] == "Prelu" else cmd[5]:
            b = blocks.get(x)
            if b is not None and b[4] is not None and b[1] == out[1] and last[x] == k and x != cmd[6][0]:
                alias[cmd[6][0]] = alias.get(x, x)
                break
    return alias


def _grouped(blocks: dict[int, list], alias: dict[int, int]) -> dict[int, list]:
    """The blocks with each in-place chain as one block (by its first id) live over its members' ranges."""
    groups = {i: list(b) for i, b in blocks.items() if i not in alias}
    for i, root in alias.items():
        g, b = groups[root], blocks[i]
        g[3] = min(g[3], b[3])
        g[4] = None if g[4] is None or b[4] is None else max(g[4], b[4])
    return groups


def layout(cmds: list[tuple], blocks: dict[int, list]) -> tuple[dict[int, int], int, dict[int, int]]:
    """The arena plan of a recorded run: (offsets, arena size, outputs planned in place -> their block)."""
    alias = in_place(cmds, blocks)
    offsets, size = plan(_grouped(blocks, alias), len(cmds))
    offsets.update((i, offsets[root]) for i, root in alias.items())
    return offsets, size, alias


class Compiled:
    """One capture as one JS program over a planned arena (see the module docstring)."""

    def __init__(self, capture: Any, rec: _Recorder, feed_ids: list[int]) -> None:
        backend = self.backend = capture.backend
        self.module = backend.module
        self.externals = capture.externals
        self.external_ids = [t.data_id for t in capture.externals]
        self.constants = [t.data_id for ts in backend.constants.values() for t in ts]
        self.flags = backend._flags  # has_nan's scratch buffer, which the NaN checks write
        self.guarded = 0  # runs a NaN check sent the Python way
        self.pinned = rec.pinned  # data id -> address of the weights whose addresses the program holds
        self.retry = False  # dropped for a change that a new planning run can follow
        consts_size = (rec.const_size + _ALIGN - 1) // _ALIGN * _ALIGN
        offsets, size, self.in_place = layout(rec.cmds, rec.blocks)
        self.size = consts_size + size + _SLACK  # bytes of the arena
        self.arena = backend.malloc(self.size)
        base = self.arena + consts_size
        self.places = {i: (base + offsets[i], b[2]) for i, b in rec.blocks.items()}
        self.outputs = [
            o if o[0] == "given" else (*o, self.places[o[1]][0], rec.blocks[o[1]][1]) for o in rec.outputs
        ]
        _settle(backend)
        register = backend.abi.register_tensor
        for data_id, (ptr, elements) in self.places.items():
            register(data_id, elements, ptr)
        self._finalizer = weakref.finalize(
            self, _release, backend, self.module, list(self.places), self.arena
        )
        blob = bytearray(consts_size)
        for raw, off in rec.consts.items():
            blob[off : off + len(raw)] = raw
        source, fns, data = _source(rec, self, feed_ids, consts_size)
        self.segments = list(_compile(source, self.module.memory, fns, bytes(blob) + data))
        self.steps = []  # the Python steps between the segments: (impl, inputs, attrs, reads, outputs)
        for cmd in rec.cmds:
            if cmd[0] == "python":
                _, impl, inputs, attrs, out_ids = cmd
                reads = {
                    t.data_id: (self.places[t.data_id][0], rec.blocks[t.data_id][1], t.dtype)
                    for t in _tensors(inputs.values() if isinstance(inputs, dict) else inputs)
                    if t.data_id in self.places
                }
                self.steps.append((impl, inputs, attrs, reads, out_ids))

    def run(self, feeds: list[Tensor]) -> list[Tensor] | None:
        """The outputs for new feeds of the planned signature, or None when the program no longer applies
        (nothing is left made)."""
        backend = self.backend
        data = backend.data
        if (
            ENGINE._backend is not backend
            or backend.module is not self.module
            or any(i not in data for i in self.constants)
        ):
            return _drop("the backend, a weight or a kernel table changed")
        for t, i in zip(self.externals, self.external_ids, strict=True):
            if t.data_id != i or t.is_disposed_internal:
                return _drop("the backend, a weight or a kernel table changed")
            if i not in data:  # a weight moved to another backend comes back (the exports take its id)
                backend.get_data(i)
        if backend._flags is not self.flags or any(data[i][0] != p for i, p in self.pinned.items()):
            self.retry = True  # a planning run now would bake the new addresses
            return _drop("a weight or has_nan's buffer moved")
        made = [o for o in self.outputs if o[0] == "made"]
        ids = [new_data_id() for _ in made]
        module = self.module
        args = [backend.pointer(t) for t in feeds]
        temps: list[int] = []
        last = len(self.segments) - 1
        for j, segment in enumerate(self.segments):
            if j == last:
                args += ids
            since = module.log_count
            try:
                ptrs = segment(*args)
            except Exception as e:
                backend._trapped(e, "compiled replay")
                raise
            for t in temps:
                backend.dispose_data(t)
            if ptrs == -1:  # a NaN where the recording had none: this run goes the Python way
                self.guarded += 1
                return None
            if j == last:
                break
            if module.log_count != since:
                return _drop(f"an export printed: {module.recent_log(since)}")
            impl, inputs, attrs, reads, out_ids = self.steps[j]
            data.update(reads)  # the Python kernel reads its inputs' arena places
            try:
                out = impl(backend, inputs, attrs)
            finally:
                for i in reads:
                    del data[i]
            infos = (out,) if type(out) is TensorInfo else out
            temps = [info.data_id for info in infos if info.data_id not in reads]
            args = [
                0 if i in reads else backend.pointer(info) for info, i in zip(infos, out_ids, strict=True)
            ]
        ptrs = ptrs.to_py()
        if not all(ptrs) or module.log_count != since:
            for i, p in zip(ids, ptrs, strict=True):
                if p:
                    backend._release(i, p)
            return _drop(f"an export printed: {module.recent_log(since)}" if all(ptrs) else "out of memory")

        def new_tensors() -> Any:
            for data_id, ptr, (_, _, shape, dtype, _, nbytes) in zip(ids, ptrs, made, strict=True):
                data[data_id] = (ptr & 0xFFFFFFFF, nbytes, dtype)
                backend.bytes_allocated += nbytes
                yield ENGINE.wrap(TensorInfo(data_id, shape, dtype), backend)

        outs = program_outputs(self.outputs, feeds, self.externals, new_tensors())
        return outs

    def release(self) -> None:
        """Unregister the planned ids and free the arena (idempotent)."""
        self._finalizer()


def _drop(why: str) -> None:
    DROPS[why] = DROPS.get(why, 0) + 1


def _settle(backend: Any) -> None:
    """Free the disposed blocks the backend still holds back, so their ids are unregistered now."""
    if backend._frees:
        backend._flush_frees()
    if backend._pending[0]:
        backend._release(*backend._pending)
        backend._pending = (0, 0)


def _release(backend: Any, module: Any, ids: list[int], arena: int) -> None:
    if backend._disposed or backend.module is not module:
        return
    unregister = backend.abi.dispose_data
    for data_id in ids:
        unregister(data_id)
    backend.abi.free(arena)


def _source(
    rec: _Recorder, compiled: Compiled, feed_ids: list[int], consts_base: int
) -> tuple[str, list, bytes]:
    """The JS source `(memory, f, blob) => [segment, ...]`: the program cut at its Python steps. The first
    segment takes the feeds' pointers, each later one the pointers of the previous Python step's outputs
    (0: already in place), the last one also the outputs' data ids; it returns the outputs' new pointers.
    Also the functions the source calls (f[i]) and the bytes of its writes (after the constants in blob)."""
    fns: list[Any] = []
    index: dict[int, int] = {}
    abi = compiled.backend.abi

    def fn(f: Any) -> str:
        key = id(f)
        if key not in index:
            index[key] = len(fns)
            fns.append(f)
        return f"f{index[key]}"

    def copies(names: list[str], ids: list[int]) -> list[str]:
        lines = []
        for name, data_id in zip(names, ids, strict=True):
            ptr, n = places[data_id][0], rec.blocks[data_id][1]
            if n:
                lines.append(
                    f"if ({name}) new Uint8Array(memory.buffer).copyWithin({ptr}, {name}, {name} + {n});"
                )
        return lines

    arena = compiled.arena
    places = compiled.places
    unregister, register, malloc = fn(abi.dispose_data), fn(abi.register_tensor), fn(abi.malloc)
    params = [f"p{i}" for i in range(len(feed_ids))]
    body = ["let h;"]
    if consts_base:
        body.append(f"new Uint8Array(memory.buffer).set(blob.subarray(0, {consts_base}), {arena});")
    body += copies(params, feed_ids)
    segments = []
    data = bytearray()
    for cmd in rec.cmds:
        if cmd[0] == "write":
            _, block, off, raw = cmd
            start = consts_base + len(data)
            data += raw
            body.append(
                f"h = new Uint8Array(memory.buffer); h.set(blob.subarray({start}, {start + len(raw)}), "
                f"{places[block][0] + off});"
            )
            continue
        if cmd[0] == "guard":
            body.append(f"if (new Uint8Array(memory.buffer)[{cmd[1]}]) return -1;")
            continue
        if cmd[0] == "python":
            segments.append((params, body))
            params = [f"q{i}" for i in range(len(cmd[4]))]
            body = ["let h;", *copies(params, cmd[4])]
            continue
        _, f, values, refresh, name, _, _ = cmd
        for data_id in refresh:
            ptr, size = places[data_id]
            body.append(f"{unregister}({data_id}); {register}({data_id}, {size}, {ptr});")
        args = []
        for v in values:
            if isinstance(v, tuple):
                args.append(str(arena + v[1] if v[0] == "const" else places[v[1]][0] + v[2]))
            else:
                args.append(js_number(v))
        call = f"{fn(f)}({', '.join(args)});"
        if PROFILE:  # time each call: webtfReplayProfile[name] = [ms, calls, max ms]
            call = (
                f"{{ const t = performance.now(); {call} const P = (globalThis.webtfReplayProfile ??= {{}});"
                f" const e = P[{name!r}] ??= [0, 0, 0], d = performance.now() - t; e[0] += d; e[1]++;"
                f" if (d > e[2]) e[2] = d; }}"
            )
        body.append(call)
    made = [o for o in compiled.outputs if o[0] == "made"]
    params = params + [f"o{i}" for i in range(len(made))]
    body.append("const out = [];")
    for k, (_, _, shape, _, src, nbytes) in enumerate(made):
        body.append(
            f"{{ const p = {malloc}({nbytes or 1}); out.push(p); if (p) {{ {register}(o{k}, {math.prod(shape)}, p);"
            f" new Uint8Array(memory.buffer).copyWithin(p, {src}, {src + nbytes}); }} }}"
        )
    body.append("return out;")
    segments.append((params, body))
    heads = "".join(f"const f{i} = f[{i}]; " for i in range(len(fns)))
    functions = ",\n".join(f"({', '.join(ps)}) => {{\n" + "\n".join(b) + "\n}" for ps, b in segments)
    source = f"(memory, f, blob) => {{ {heads}return [\n{functions}]; }}"
    return source, fns, bytes(data)


def _compile(source: str, memory: Any, fns: list[Any], blob: bytes) -> Any:
    from pyodide.code import run_js  # type: ignore[import-not-found]
    from pyodide.ffi import to_js  # type: ignore[import-not-found]

    from .. import js as bridge

    data = bridge.js.Uint8Array.new(len(blob))
    if blob:
        data.assign(blob)
    return run_js(source)(memory, to_js(fns), data)


def compile_capture(capture: Any, feeds: list[Tensor]) -> Compiled | None:
    """The capture as one JS program, planned on a run of `feeds`; None when it cannot be (REFUSALS says why)."""
    rec, feed_ids = record(capture, feeds)
    if rec.refused is None:
        try:
            return Compiled(capture, rec, feed_ids)
        except MemoryError:
            rec.refused = "no heap for the arena"
    REFUSALS[rec.refused] = REFUSALS.get(rec.refused, 0) + 1
    _settle(capture.backend)
    return None
