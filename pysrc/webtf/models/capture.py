"""Capture and replay of whole model runs: the first run of a program for an input signature records its
kernel calls; later runs call the kernels directly, with no op layer, scopes or tensor bookkeeping.

A capture holds, per kernel: the backend's kernel function, where each input comes from (a feed, a tensor
that existed before the run such as a weight, or an earlier kernel's output), the attrs, the shape, dtype
and buffer sharing of each output, and the buffers to free after it (a static plan: each buffer is freed
right after its last reader). Only the model's outputs become engine tensors.

A run is not captured when anything in it depends on tensor values (it read a feed's or an intermediate's
data) or when an op made a tensor outside a kernel (a converted number, random values); it then always runs
the normal way. Kernels computed from weights alone run once, when the capture is built, and their outputs
become weights the capture owns (fold_constants); a zero pad of height and width folds into the convolution
reading it (fold_pads); a convolution or matmul whose only reader adds a 1-D bias weight is captured as the
fused kernel with that bias (fuse_bias_adds). A replay whose kernel outputs differ in shape or sharing from the
recording stops, frees what it made and the capture is dropped. The signature is the feeds' shapes and
dtypes, the backend instance and the flags' version (ENV.version), so a change of any of them records anew.
"""

from __future__ import annotations

import importlib
import math
import weakref
from typing import Any

from .. import kernel_names as kn
from ..backend_util import conv_info_from_attrs
from ..backends.base import TensorInfo
from ..engine import ENGINE
from ..environment import ENV
from ..tensor import Tensor, Variable

#: a kernel input in a capture or a step replay: an index into the values, a list of them, or None
Ref = Any

#: False: models run the normal way (for comparisons; captures already made are kept)
ENABLED = True
#: False: replays on wasm and webgl call the kernels from Python instead of one compiled JS program
COMPILE = True

#: False: captures keep each convolution / matmul and its bias add as recorded (no fuse_bias_adds)
FUSE = True
#: False: captures keep the kernels computed from weights alone as recorded (no fold_constants)
FOLD = True

#: backends whose captures compile to one JS program: name -> the module with compile_capture(capture, feeds)
_COMPILERS = {"wasm": "..backends.wasm.replay", "webgl": "..backends.webgl.replay"}

_MAX_PLANS = 3  # programs planned per capture at most (weights moving between backends need new ones)

#: how many runs were captured, replayed, refused (not capturable) and dropped (a replay did not match); of
#: the replays, how many ran as one compiled JS program, and how many captures could not be compiled
STATS = {"captured": 0, "replayed": 0, "refused": 0, "dropped": 0, "compiled": 0, "not_compiled": 0}


def ref_of(v: Any, index: dict[int, int]) -> Ref:
    """The Ref of kernel input `v` (a tensor, a list of them or None); KeyError when one is not indexed."""
    if v is None:
        return None
    if isinstance(v, (list, tuple)):
        return [index[id(t)] for t in v]
    return index[id(v)]


def take(pool: list[Any], r: Ref) -> Any:
    """The kernel input `r` refers to in `pool`."""
    return pool[r] if type(r) is int else None if r is None else [pool[i] for i in r]


def hooks_active() -> bool:
    """Whether the engine is profiling, timing, recording, taping or debugging, or capture is off (then
    nothing replays)."""
    e = ENGINE
    return (
        not ENABLED
        or e._profile is not None
        or e._timing_ms is not None
        or e._recording is not None
        or e._tape is not None
        or ENV.debug
    )


def recorded(run: Any) -> tuple[Any, list[Any], int]:
    """run()'s result, the kernels it ran (ENGINE.record_kernels) and the first tensor id it could make."""
    log: list[Any] = []
    start = ENGINE.next_tensor_id()
    ENGINE.record_kernels(log)
    try:
        out = run()
    finally:
        ENGINE.record_kernels(None)
    return out, log, start


def signature(feeds: list[Tensor]) -> tuple:
    """What a capture is valid for: the backend instance, the flags' version, the feeds' shapes and dtypes."""
    return (id(ENGINE._backend), ENV.version, *[(t.shape, t.dtype) for t in feeds])


class Capture:
    """The kernels of one recorded run and its static free plan (see the module docstring)."""

    __slots__ = (
        "backend",
        "compiled",
        "externals",
        "kernels",
        "owned",
        "plans",
        "result",
        "sources",
        "source_ids",
        "stale",
        "_free",
        "__weakref__",
    )

    def __init__(
        self,
        backend: Any,
        externals: list[Tensor],
        kernels: list[tuple],
        result: list[int],
        folded: Folded | None = None,
    ) -> None:
        self.backend = backend
        self.externals = externals
        self.kernels = kernels  # (impl, refs, attrs, ((shape, dtype, alias index or -1), ...), frees)
        self.result = result
        self.compiled: Any = None  # the run as one JS program (wasm: backends/wasm/replay.py); False: none
        self.plans = 0  # compiled programs planned
        # the weights folded values derive from, with their data ids then (assign() gives a new one)
        self.sources = folded.sources if folded else []
        self.source_ids = [t.data_id for t in self.sources]
        self.owned = folded.owned if folded else []  # data ids of the folded values the capture frees
        self.stale = False  # a source weight changed: the run should be captured anew
        self._free = (
            weakref.finalize(self, _free_folded, backend, folded.owned, folded.values)
            if folded and folded.owned
            else None
        )

    @staticmethod
    def build(
        feeds: list[Tensor], log: list[Any], result: list[Tensor], start_id: int, optimize: bool = True
    ) -> Capture | None:
        """A capture of what `log` (ENGINE.record_kernels during a run) holds, or None. Tensors with ids
        below `start_id` existed before the run (weights); `result` are the run's outputs. optimize: False
        keeps the kernels as recorded (no folding, fusion or NaN-check removal: a training step's weights change)."""
        folded = fold_constants(log, feeds, result, start_id, ENGINE._kernels) if FOLD and optimize else None
        made = Capture._build(feeds, folded.log if folded else log, result, start_id, folded, optimize)
        if made is None and folded is not None:
            _free_folded(ENGINE._backend, folded.owned, folded.values)
        return made

    @staticmethod
    def _build(
        feeds: list[Tensor],
        log: list[Any],
        result: list[Tensor],
        start_id: int,
        folded: Folded | None,
        optimize: bool = True,
    ) -> Capture | None:
        kernels_of = ENGINE._kernels
        fuse = FUSE and optimize
        if fuse:
            log = fold_pads(log, result)
            log = fuse_bias_adds(log, result, start_id, kernels_of)
        unguard = unneeded_nan_checks(log, result, start_id, kernels_of) if fuse else set()
        entries = []
        seen = {id(t) for t in feeds}  # feeds, weights and kernel outputs met so far
        run_data = {t.data_id for t in feeds}
        externals: list[Tensor] = []
        for entry in log:
            if entry[0] == "read":
                if entry[1] in run_data:
                    return None  # a value read from the run's own data: data-dependent
                continue
            if entry[0] == "made":  # a tensor from host values (a converted number): made again each replay
                t = entry[1]
                seen.add(id(t))
                run_data.add(t.data_id)
                entries.append((None, entry[2], None, (t,)))
                continue
            if len(entry) != 4:
                return None  # an event such as random values
            name, inputs, attrs, outs = entry
            impl = kernels_of.get(name)
            if id(outs) in unguard:
                impl = impl.unguarded
            if impl is None or any(isinstance(v, Tensor) for v in attrs.values()):
                return None
            for t in _tensors(inputs.values() if isinstance(inputs, dict) else inputs):
                if id(t) not in seen:
                    if t.id >= start_id or t.data_id in run_data:
                        return None  # made during the run outside a kernel
                    seen.add(id(t))
                    externals.append(t)
            outs = (outs,) if isinstance(outs, Tensor) else outs
            for t in outs:
                seen.add(id(t))
                run_data.add(t.data_id)
            entries.append((impl, inputs, attrs, outs))
        values: list[Tensor] = [*feeds, *externals]
        index: dict[int, int] = {}
        by_data: dict[int, int] = {}  # data id -> the first value holding it
        for i, t in enumerate(values):
            index.setdefault(id(t), i)
            by_data.setdefault(t.data_id, i)
        steps: list[tuple[Any, Any, dict, list[tuple[tuple, str, int]], int]] = []
        for impl, inputs, attrs, outs in entries:
            refs: Any = (
                inputs  # a made tensor's values
                if impl is None
                else {k: ref_of(v, index) for k, v in inputs.items()}
                if isinstance(inputs, dict)
                else [ref_of(v, index) for v in inputs]
            )
            specs = []
            for t in outs:
                alias = by_data.setdefault(t.data_id, len(values))
                specs.append((t.shape, t.dtype, -1 if alias == len(values) else alias))
                index[id(t)] = len(values)
                values.append(t)
            steps.append((impl, refs, attrs, specs, len(values)))
        try:
            out_refs = [index[id(t)] for t in result]
        except KeyError:
            return None
        return Capture(
            ENGINE._backend,
            externals,
            _plan_frees(steps, len(feeds) + len(externals), out_refs),
            out_refs,
            folded,
        )

    def run(self, feeds: list[Tensor]) -> list[Tensor] | None:
        """The outputs for new feeds of the recorded signature, or None (nothing left made) when this
        capture no longer applies: a weight was disposed or (stale) one that folded values derive from was
        assigned, or a kernel's outputs differ from the recording.
        On wasm and webgl the first replay plans a compiled program (backends/*/replay.py) and runs it; later
        replays run it too, or the kernels from Python (replay()) where it could not be made."""
        if self.sources and (
            [t.data_id for t in self.sources] != self.source_ids
            or any(t.is_disposed_internal for t in self.sources)
            or any(i not in self.backend.data for i in self.owned)  # a wasm recover() dropped them
        ):
            self.stale = not any(t.is_disposed_internal for t in self.sources)
            self.drop()
            return None
        compiled = self.compiled
        if compiled is None and COMPILE and ENGINE._backend is self.backend:
            compiler = _COMPILERS.get(self.backend.name)
            if compiler is not None:
                self.plans += 1
                compile_capture = importlib.import_module(compiler, __package__).compile_capture
                compiled = self.compiled = compile_capture(self, feeds) or False
                if not compiled:
                    STATS["not_compiled"] += 1
        if compiled and COMPILE:
            guarded = compiled.guarded
            outs = compiled.run(feeds)
            if outs is not None:
                STATS["compiled"] += 1
                return outs
            if compiled.guarded == guarded:  # else a NaN check failed: only this run goes the Python way
                self.release()
                if compiled.retry and self.plans < _MAX_PLANS:
                    self.compiled = None  # the next replay plans anew
        outs = self.replay(feeds)
        if outs is None:
            self.release()
        return outs

    def release(self) -> None:
        """Drop the compiled program (its arena and registered ids), if any."""
        if self.compiled:
            self.compiled.release()
        self.compiled = False

    def drop(self) -> None:
        """release(), and free the folded values the capture owns (it cannot replay after this)."""
        self.release()
        if self._free is not None:
            self._free()

    def replay(self, feeds: list[Tensor], hook: Any = None) -> list[Tensor] | None:
        """run() from Python: each kernel function called directly, intermediates freed after their last
        reader. hook: told hook.begin(impl, inputs, attrs) before each kernel, hook.end(outputs) after."""
        backend = ENGINE._backend
        if backend is not self.backend or any(t.is_disposed_internal for t in self.externals):
            return None
        known = ENGINE.data_info
        vals: list[Any] = [*feeds, *self.externals]
        first_made = len(vals)
        alive: set[int] = set()
        try:
            for impl, refs, attrs, specs, frees in self.kernels:
                inputs = (
                    {k: take(vals, r) for k, r in refs.items()}
                    if type(refs) is dict
                    else [take(vals, r) for r in refs]
                    if impl is not None
                    else None
                )
                if hook is not None:
                    hook.begin(impl, inputs, attrs)
                    start = len(vals)
                out = impl(backend, inputs, attrs) if impl is not None else _write(backend, refs, specs[0])
                for info, (shape, dtype, alias) in zip(
                    (out,) if type(out) is TensorInfo else out, specs, strict=True
                ):
                    data_id = info.data_id
                    if info.shape != shape or info.dtype != dtype:
                        raise _Mismatch
                    if alias < 0:
                        if data_id in known:
                            raise _Mismatch
                        alias = len(vals)
                        alive.add(alias)
                    elif vals[alias].data_id != data_id:
                        raise _Mismatch
                    vals.append(Tensor(shape, dtype, data_id, -1))
                if hook is not None:
                    hook.end(vals[start:])
                for i in frees:
                    alive.discard(i)
                    backend.dispose_data(vals[i].data_id)
        except _Mismatch:
            for i in alive:
                backend.dispose_data(vals[i].data_id)
            return None
        except BaseException:
            for i in alive:
                backend.dispose_data(vals[i].data_id)
            raise
        outs = []
        for i in self.result:
            t = vals[i]
            outs.append(
                ENGINE.wrap(TensorInfo(t.data_id, t.shape, t.dtype), backend) if i >= first_made else t
            )
        return outs


_FOLD_GROWTH = 1 << 16  # elements a folded kernel may make beyond its inputs' (held for the capture's life)


class Folded:
    """What fold_constants made: the log left, the folded values (weights of the capture), the data ids
    among them the capture owns, and the weights they derive from."""

    __slots__ = ("log", "owned", "sources", "values")

    def __init__(self, log: list[Any], values: list[Tensor], owned: list[int], sources: list[Tensor]) -> None:
        self.log, self.values, self.owned, self.sources = log, values, owned, sources


def fold_constants(
    log: list[Any], feeds: list[Tensor], result: list[Tensor], start_id: int, kernels: dict[str, Any]
) -> Folded | None:
    """Run once, now, each kernel of `log` whose inputs are all weights (tensors that existed before the run,
    feeds excepted), numbers the run converted, or outputs of such kernels: its outputs become weights of the
    capture and the kernel leaves the log (a batch norm's scale and offset, a filter scaled by them). Not
    folded: kernels making a run output or a value the run read, or more than 65,536 elements beyond their
    inputs'. None when nothing folds."""
    feed_ids = {id(t) for t in feeds}
    feed_data = {t.data_id for t in feeds}
    read = {entry[1] for entry in log if entry[0] == "read"}
    outputs = {id(t) for t in result}
    made: dict[int, tuple] = {}  # id(converted number's tensor) -> its log entry
    folded: dict[int, Tensor] = {}  # id(recorded tensor) -> its value now (made by this pass)
    sources: dict[int, Tensor] = {}
    dropped: set[int] = set()  # log indices folded away
    backend = ENGINE._backend
    owned: list[int] = []
    known = ENGINE.data_info

    def constant(t: Tensor) -> Tensor | None:
        got = folded.get(id(t))
        if got is not None:
            return got
        if id(t) in made:
            _, _, values = made[id(t)]
            got = folded[id(t)] = Tensor(t.shape, t.dtype, backend.write(values[:], t.shape, t.dtype), -1)
            owned.append(got.data_id)
            return got
        if (
            t.id < start_id
            and id(t) not in feed_ids
            and t.data_id not in feed_data
            and not t.is_disposed_internal
        ):
            sources[id(t)] = t
            return t
        return None

    try:
        for k, entry in enumerate(log):
            if entry[0] == "made":
                made[id(entry[1])] = entry
                continue
            if len(entry) != 4:
                continue
            name, inputs, attrs, outs = entry
            impl = kernels.get(name)
            ins = list(_tensors(inputs.values() if isinstance(inputs, dict) else inputs))
            outs_t = (outs,) if isinstance(outs, Tensor) else tuple(outs)
            if (
                impl is None
                or not ins
                or any(isinstance(v, Tensor) for v in attrs.values())
                or any(id(t) in outputs or t.data_id in read for t in outs_t)
                or sum(t.size for t in outs_t) > max(sum(t.size for t in ins), _FOLD_GROWTH)
            ):
                continue  # (a kernel growing weights, such as a tile to the activations' size, is left)
            consts = {}
            for t in ins:
                c = constant(t)
                if c is None:
                    break
                consts[id(t)] = c
            else:
                given = _substitute(inputs, consts)
                got = impl(backend, given, attrs)
                infos = (got,) if type(got) is TensorInfo else got
                taken = {t.data_id for t in consts.values()}
                for info, t in zip(infos, outs_t, strict=True):
                    if info.data_id not in taken and info.data_id not in known and info.data_id not in owned:
                        owned.append(info.data_id)
                    folded[id(t)] = Tensor(info.shape, info.dtype, info.data_id, -1)
                    if info.shape != t.shape or info.dtype != t.dtype:
                        raise _Mismatch
                dropped.add(k)
    except _Mismatch:
        _free_folded(backend, owned, [])
        return None
    except BaseException:
        _free_folded(backend, owned, [])
        raise
    if not dropped:
        _free_folded(backend, owned, [])
        return None
    kept = []
    needed: set[int] = set()  # converted numbers a kept kernel still reads
    for k, entry in enumerate(log):
        if k in dropped:
            continue
        if len(entry) == 4:
            name, inputs, attrs, outs = entry
            ins = list(_tensors(inputs.values() if isinstance(inputs, dict) else inputs))
            needed.update(id(t) for t in ins if id(t) in made)
            subs = {id(t): folded[id(t)] for t in ins if id(t) in folded and id(t) not in made}
            if subs:
                entry = (name, _substitute(inputs, subs), attrs, outs)
        kept.append(entry)
    kept = [e for e in kept if e[0] != "made" or id(e[1]) in needed]
    # the converted numbers' copies served the folding only (kept kernels read the numbers as recorded)
    copies = {folded[i].data_id for i in made if i in folded}
    copies -= {t.data_id for i, t in folded.items() if i not in made}
    _free_folded(backend, [i for i in owned if i in copies], [])
    owned = [i for i in owned if i not in copies]
    return Folded(kept, [t for i, t in folded.items() if i not in made], owned, list(sources.values()))


def _substitute(inputs: Any, subs: dict[int, Tensor]) -> Any:
    """Kernel inputs (a dict or list of tensors, lists of them or None) with the tensors in `subs` replaced."""

    def one(v: Any) -> Any:
        if isinstance(v, (list, tuple)):
            return [subs.get(id(t), t) for t in v]
        return v if v is None else subs.get(id(v), v)

    if isinstance(inputs, dict):
        return {k: one(v) for k, v in inputs.items()}
    return [one(v) for v in inputs]


def _free_folded(backend: Any, owned: list[int], values: list[Tensor]) -> None:
    """Free the folded values a capture owns (not on a disposed backend) and mark them disposed."""
    for t in values:
        t.is_disposed_internal = True
    if getattr(backend, "_disposed", False):
        return
    for data_id in owned:
        backend.dispose_data(data_id)


#: kernel -> its fused form (bias input, linear activation) with the extra attrs it takes
_FUSABLE = {
    kn.Conv2D: kn.FusedConv2D,
    kn.DepthwiseConv2dNative: kn.FusedDepthwiseConv2D,
    kn.BatchMatMul: kn._FusedMatMul,
}


def fuse_bias_adds(log: list[Any], result: list[Tensor], start_id: int, kernels: dict[str, Any]) -> list[Any]:
    """`log` (record_kernels entries) with each Conv2D / DepthwiseConv2dNative / BatchMatMul whose output's
    only reader is an Add of a float32 [channels] tensor that existed before the run (a weight) replaced by
    the fused kernel with that bias, at the conv's place, making the Add's output; the Add is dropped. Only
    where the backend has the fused kernel, the conv is float32 channels-last and its output is no result."""
    readers, read = _readers(log)
    outputs = {id(t) for t in result}
    producer: dict[int, int] = {}  # id(conv output) -> its entry's index, for the fusable ones
    fused: dict[int, tuple] = {}  # conv entry index -> the fused entry
    dropped: set[int] = set()
    for k, entry in enumerate(log):
        if len(entry) != 4:
            continue
        name, inputs, attrs, outs = entry
        if name in _FUSABLE and isinstance(outs, Tensor) and isinstance(inputs, dict):
            if (
                outs.dtype == "float32"
                and attrs.get("data_format", "NHWC") == "NHWC"
                and readers.get(id(outs)) == 1
                and outs.data_id not in read
                and id(outs) not in outputs
                and kernels.get(_FUSABLE[name]) is not None
            ):
                producer[id(outs)] = k
            continue
        if name != kn.Add or not isinstance(outs, Tensor) or not isinstance(inputs, dict):
            continue
        a, b = inputs.get("a"), inputs.get("b")
        for made, bias in ((a, b), (b, a)):
            k0 = producer.pop(id(made), None) if made is not None else None
            if k0 is None:
                continue
            if (
                isinstance(bias, Tensor)
                and bias is not made
                and bias.id < start_id
                and bias.dtype == "float32"
                and bias.shape == (made.shape[-1],)
                and outs.shape == made.shape
            ):
                cname, cins, cattrs, _ = log[k0]
                fused_attrs = {**cattrs, "activation": "linear", "leakyrelu_alpha": 0.2}
                fused[k0] = (
                    _FUSABLE[cname],
                    {**cins, "bias": bias, "prelu_activation_weights": None},
                    fused_attrs,
                    outs,
                )
                dropped.add(k)
            break
    if not fused:
        return log
    return [fused.get(k, e) for k, e in enumerate(log) if k not in dropped]


_CONVS = frozenset({kn.Conv2D, kn.DepthwiseConv2dNative, kn.FusedConv2D, kn.FusedDepthwiseConv2D})


def fold_pads(log: list[Any], result: list[Tensor]) -> list[Any]:
    """`log` with each zero PadV2 of the height and width of a float32 NHWC tensor whose only reader is a
    convolution's x (no rounding mode) folded into that convolution as
    explicit padding ('same' turned into its amounts): the same windows over the same zeros, without the
    padded copy."""
    readers, read = _readers(log)
    outputs = {id(t) for t in result}
    pads: dict[int, tuple[int, Tensor, tuple]] = {}  # id(padded) -> (its entry index, x, (t, b, l, r))
    folded: dict[int, tuple] = {}
    dropped: set[int] = set()
    for k, entry in enumerate(log):
        if len(entry) != 4:
            continue
        name, inputs, attrs, outs = entry
        if name == kn.PadV2 and isinstance(outs, Tensor):
            p = [tuple(v) for v in attrs["paddings"]]
            if (
                outs.dtype == "float32"
                and len(p) == 4
                and p[0] == p[3] == (0, 0)
                and attrs.get("constant_value") == 0
                and readers.get(id(outs)) == 1
                and id(outs) not in outputs
                and outs.data_id not in read
            ):
                pads[id(outs)] = (k, inputs["x"], (*p[1], *p[2]))
            continue
        if name not in _CONVS or not isinstance(inputs, dict) or id(inputs.get("x")) not in pads:
            continue
        pad = attrs.get("pad")
        if attrs.get("data_format", "NHWC") != "NHWC" or attrs.get("dim_rounding_mode") is not None:
            continue
        if pad == "valid":
            have = (0, 0, 0, 0)
        elif pad == "same":  # the amounts 'same' pads the padded x by
            depthwise = name in (kn.DepthwiseConv2dNative, kn.FusedDepthwiseConv2D)
            info = conv_info_from_attrs(inputs["x"].shape, inputs["filter"].shape, attrs, depthwise)
            have = (info.pad_top, info.pad_bottom, info.pad_left, info.pad_right)
        elif isinstance(pad, (list, tuple)) and len(pad) == 4:
            have = (*pad[1], *pad[2])
        else:
            continue
        k0, x, (t, b, left, right) = pads.pop(id(inputs["x"]))
        pad = [[0, 0], [have[0] + t, have[1] + b], [have[2] + left, have[3] + right], [0, 0]]
        folded[k] = (name, {**inputs, "x": x}, {**attrs, "pad": pad}, outs)
        dropped.add(k0)
    if not folded:
        return log
    return [folded.get(k, e) for k, e in enumerate(log) if k not in dropped]


def unneeded_nan_checks(log: list[Any], result: list[Tensor], start_id: int, kernels: dict[str, Any]) -> set:
    """The ids of the Relu6 outputs in `log` whose kernel's NaN check cannot change the run's results: the
    hard-swish pattern x * relu6(x + k) [* k2], k and k2 finite weights (not variables), all of one shape,
    relu6's output read by that Multiply only. relu6 of a NaN is wrong natively, but where x + k is NaN, x is,
    and the product is NaN whatever relu6 gave. Only where the backend's Relu6 has an unguarded form."""
    impl = kernels.get(kn.Relu6)
    if impl is None or not hasattr(impl, "unguarded"):
        return set()
    readers: dict[int, list] = {}  # id(tensor) -> the kernel entries reading it
    made: dict[int, tuple] = {}  # id(tensor) -> the kernel entry making it
    outputs = {id(t) for t in result}
    for entry in log:
        if len(entry) == 4:
            ins = entry[1].values() if isinstance(entry[1], dict) else entry[1]
            for t in _tensors(ins):
                readers.setdefault(id(t), []).append(entry)
            if isinstance(entry[3], Tensor):
                made[id(entry[3])] = entry

    def plus_weight(t: Tensor, name: str) -> Tensor | None:
        """u when t = u (name) k for a finite float32 weight k and u of t's shape, else None."""
        entry = made.get(id(t))
        if entry is None or entry[0] != name or not isinstance(entry[1], dict):
            return None
        a, b = entry[1].get("a"), entry[1].get("b")
        for u, k in ((a, b), (b, a)):
            if (
                isinstance(u, Tensor)
                and isinstance(k, Tensor)
                and u.shape == t.shape
                and k.id < start_id
                and not isinstance(k, Variable)  # assign() could make it non-finite after the capture
                and k.dtype == "float32"
                and k.size <= 4096
                and all(math.isfinite(v) for v in ENGINE.read_sync(k.data_id))
            ):
                return u
        return None

    found = set()
    for entry in log:
        if len(entry) != 4 or entry[0] != kn.Relu6 or not isinstance(entry[3], Tensor):
            continue
        r = entry[3]
        uses = readers.get(id(r), [])
        if id(r) in outputs or len(uses) != 1 or uses[0][0] != kn.Multiply or uses[0][3].shape != r.shape:
            continue
        x = plus_weight(entry[1]["x"], kn.Add)
        a, b = uses[0][1].get("a"), uses[0][1].get("b")
        other = b if a is r else a
        if x is None or other is r or not isinstance(other, Tensor) or other.shape != r.shape:
            continue
        if other is x or plus_weight(other, kn.Multiply) is x:
            found.add(id(r))
    return found


def program_outputs(outputs: list[tuple], feeds: list[Tensor], externals: list[Tensor], made: Any) -> list[Tensor]:
    """A compiled program's results in order: ("given", i) is feed or weight i (capture value order), any
    other entry the next tensor of the iterator `made` (backends/*/replay.py)."""
    n = len(feeds)
    return [
        (feeds[o[1]] if o[1] < n else externals[o[1] - n]) if o[0] == "given" else next(made) for o in outputs
    ]


def _readers(log: list[Any]) -> tuple[dict[int, int], set[int]]:
    """How many kernel inputs of `log` name each tensor (by id), and the data ids whose values were read."""
    readers: dict[int, int] = {}
    for entry in log:
        if len(entry) == 4:
            for t in _tensors(entry[1].values() if isinstance(entry[1], dict) else entry[1]):
                readers[id(t)] = readers.get(id(t), 0) + 1
    return readers, {entry[1] for entry in log if entry[0] == "read"}


def _tensors(inputs: Any) -> Any:
    """The tensors among kernel inputs (each a tensor, a list of them or None)."""
    for v in inputs:
        if isinstance(v, (list, tuple)):
            yield from v
        elif v is not None:
            yield v


class _Mismatch(Exception):
    """A replayed kernel's outputs differ from the recording."""


def _plan_frees(steps: list[tuple], first_made: int, out_refs: list[int]) -> list[tuple]:
    """The kernels with, after each, the buffers (by owning value index) whose last reader it is. Buffers of
    feeds and weights, and those the outputs hold, are never freed."""
    owner: dict[int, int] = {}  # value index -> the index of the value that made its buffer
    last: dict[int, int] = {}  # owner -> the step after which its buffer is free
    start = first_made
    for k, (impl, refs, _, specs, end) in enumerate(steps):
        for r in refs.values() if isinstance(refs, dict) else refs if impl is not None else ():
            for i in () if r is None else (r,) if type(r) is int else r:
                o = owner.get(i, i)
                if o >= first_made:
                    last[o] = k
        for j, (_, _, alias) in enumerate(specs):
            i = start + j
            o = owner.get(alias, alias) if alias >= 0 else i
            owner[i] = o
            if o >= first_made and o not in last:
                last[o] = k
        start = end
    pinned = {owner.get(i, i) for i in out_refs}
    frees: list[list[int]] = [[] for _ in steps]
    for o, k in last.items():
        if o not in pinned:
            frees[k].append(o)
    return [
        (impl, refs, attrs, tuple(specs), tuple(frees[k]))
        for k, (impl, refs, attrs, specs, _) in enumerate(steps)
    ]


def _write(backend: Any, values: Any, spec: tuple) -> TensorInfo:
    """A made tensor's buffer for a replay, from a copy of its values (a backend may adopt the array)."""
    return TensorInfo(backend.write(values[:], spec[0], spec[1]), spec[0], spec[1])
