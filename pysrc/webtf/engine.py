"""The engine: backends by priority, the one kernel entry point, tensor and data tracking, scopes, profile."""

from __future__ import annotations

import inspect
import itertools
import sys
import time
from array import array
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from math import prod
from typing import Any

from . import tensor as _tensor_module
from .backends.base import Backend, TensorInfo
from .dtypes import BYTES_PER_ELEMENT
from .environment import ENV
from .kernel_registry import get_fast_kernels_for_backend, get_kernels_for_backend, left_out
from .tensor import Tensor

#: bytes tf.memory() counts per element, as TF.js: complex64 counts none (TF.js counts its parts, which its
#: backends keep outside the engine's books), strings their UTF-8 bytes (counted when the buffer is made)
_COUNTED_BYTES = {**BYTES_PER_ELEMENT, "complex64": 0, "string": 0}
_STRING_REASON = "Memory usage by string tensors is approximate (2 bytes per character)"

BackendFactory = Callable[[], "Backend | Awaitable[Backend]"]


#: What data_info holds per buffer: [backend, counted bytes, references, dtype, shape]. A list, not an object:
#: one is made per kernel output, and a list display costs a fraction of a class call in CPython.
_DataInfo = list
_NO_FAST: dict[str, Any] = {}


@dataclass
class MemoryInfo:
    """tf.memory(): live tensors, data buffers and bytes; backends add their own figures."""

    num_tensors: int
    num_data_buffers: int
    num_bytes: int
    unreliable: bool = False
    reasons: list[str] = field(default_factory=list)
    num_bytes_in_gpu: int | None = None
    num_bytes_in_gpu_allocated: int | None = None
    num_bytes_in_gpu_free: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class KernelRecord:
    """One kernel call seen by profile(): name, shapes, memory deltas and time."""

    name: str
    bytes_added: int
    total_bytes_snapshot: int
    tensors_added: int
    total_tensors_snapshot: int
    input_shapes: list[list[int]]
    output_shapes: list[list[int]]
    kernel_time_ms: float


@dataclass
class ProfileInfo:
    """What tf.profile(fn) returns."""

    new_bytes: int
    new_tensors: int
    peak_bytes: int
    kernels: list[KernelRecord]
    result: Any = None

    @property
    def kernel_names(self) -> list[str]:
        """Names of the kernels that ran, in order, without repeats."""
        return list(dict.fromkeys(k.name for k in self.kernels))


@dataclass
class TimingInfo:
    """What tf.time(fn) returns."""

    wall_ms: float
    kernel_ms: float


def _input_tensors(inputs: Any) -> list[Tensor]:
    values = inputs.values() if isinstance(inputs, dict) else inputs
    out: list[Tensor] = []
    for v in values:
        if isinstance(v, (list, tuple)):
            out.extend(v)
        elif v is not None:
            out.append(v)
    return out


def _collect(result: Any, into: set[int]) -> None:
    if isinstance(result, Tensor):
        into.add(id(result))
    elif isinstance(result, (list, tuple)):
        for r in result:
            _collect(r, into)
    elif isinstance(result, dict):
        for r in result.values():
            _collect(r, into)


class Engine:
    """One global engine (like TF.js ENGINE): every kernel call goes through run_kernel."""

    def __init__(self) -> None:
        self.factories: dict[str, tuple[BackendFactory, int]] = {}
        self.instances: dict[str, Backend] = {}
        self.backend_name: str | None = None
        self._backend: Backend | None = None
        self._kernels: dict[str, Any] = {}
        self._fast: dict[str, Any] = {}  # the active backend's kernels' fast variants (see run_fast)
        self._fast_now: dict[str, Any] = _NO_FAST  # _fast, or none while _hooked
        self._tensor_ids = itertools.count(0)
        self.num_tensors = 0
        self.num_bytes = 0
        self.data_info: dict[int, _DataInfo] = {}
        self.num_string_buffers = 0  # live string buffers: memory() is unreliable while there are any
        self._scopes: list[list[Tensor]] = []
        self._scope: list[Tensor] | None = None
        self._profile: list[KernelRecord] | None = None
        self._peak_bytes = 0
        self._timing_ms: float | None = None
        self._kernel_depth = 0
        self._recording: list[Any] | None = None
        self._tape: Any = None  # the gradient tape while one is being recorded (see the tape section)
        self._hooked = False  # any of the four above on (see _rehook)
        self.registered_variables: dict[str, Tensor] = {}

    # ---- backends -------------------------------------------------------------------------------
    def register_backend(self, name: str, factory: BackendFactory, priority: int = 1) -> bool:
        """Register a backend factory; the highest priority that initializes wins in ready(). A custom build
        registers only the built-in backends its config lists."""
        if left_out("backends", name):
            return False
        if name in self.factories:
            print(f"webtf: {name} backend was already registered; reusing it.", file=sys.stderr)
            return False
        self.factories[name] = (factory, priority)
        return True

    def remove_backend(self, name: str) -> None:
        """Unregister a backend and free what it holds."""
        if name not in self.factories:
            raise ValueError(f"{name} backend not found in registry")
        if self.backend_name == name:
            self._backend = None
            self.backend_name = None
            self._fast = _NO_FAST
            self._rehook()
        inst = self.instances.pop(name, None)
        if inst is not None:
            inst.dispose()
        del self.factories[name]

    def _sorted_names(self) -> list[str]:
        return sorted(self.factories, key=lambda n: -self.factories[n][1])

    def _init_sync(self, name: str) -> Backend | None:
        if name in self.instances:
            return self.instances[name]
        try:
            made = self.factories[name][0]()
        except Exception as e:  # a backend that cannot start is skipped, like TF.js
            print(f"webtf: initialization of backend {name} failed: {e}", file=sys.stderr)
            return None
        if inspect.isawaitable(made):
            if hasattr(made, "close"):
                made.close()
            return None
        return self._adopt(name, made)

    async def _init_async(self, name: str) -> Backend | None:
        if name in self.instances:
            return self.instances[name]
        try:
            made = self.factories[name][0]()
            if inspect.isawaitable(made):
                made = await made
        except Exception as e:
            print(f"webtf: initialization of backend {name} failed: {e}", file=sys.stderr)
            return None
        return self._adopt(name, made)

    def _adopt(self, name: str, backend: Backend) -> Backend:
        backend.mover = self
        self.instances[name] = backend
        return backend

    def _activate(self, name: str, backend: Backend) -> None:
        self._backend = backend
        self.backend_name = name
        self._kernels = get_kernels_for_backend(name)
        self._fast = get_fast_kernels_for_backend(name)
        self._rehook()

    @property
    def backend(self) -> Backend:
        """The active backend, picking the best synchronously-initializable one on first use."""
        if self._backend is None:
            for name in self._sorted_names():
                inst = self._init_sync(name)
                if inst is not None:
                    self._activate(name, inst)
                    break
            else:
                raise RuntimeError("No backend found in registry (or none could be initialized).")
        return self._backend  # type: ignore[return-value]

    async def set_backend(self, name: str) -> bool:
        """Switch to backend `name`; False (keeping the current one) when it cannot initialize."""
        if name not in self.factories:
            if why := left_out("backends", name):
                print(f"webtf: set_backend('{name}'): {why}", file=sys.stderr)
                return False
            raise ValueError(f"Backend name '{name}' not found in registry")
        if self.backend_name == name:
            return True
        inst = await self._init_async(name)
        if inst is None:
            return False
        self._activate(name, inst)
        return True

    async def ready(self) -> None:
        """Initialize the highest-priority backend that can start (webgl > wasm > cpu)."""
        if self._backend is not None:
            return
        for name in self._sorted_names():
            inst = await self._init_async(name)
            if inst is not None:
                self._activate(name, inst)
                return
        raise RuntimeError("No backend could be initialized.")

    def find_backend(self, name: str) -> Backend | None:
        """The initialized backend instance called `name`, or None."""
        return self.instances.get(name)

    # ---- data and tensors ----------------------------------------------------------------------
    def next_tensor_id(self) -> int:
        """A fresh tensor id."""
        return next(self._tensor_ids)

    def make_tensor(self, values: array, shape: tuple[int, ...], dtype: str) -> Tensor:
        """A tracked tensor holding host `values` on the active backend."""
        backend = self.backend
        t = self.wrap(TensorInfo(backend.write(values, shape, dtype), shape, dtype), backend)
        if self._recording is not None:
            self._recording.append(("made", t, array(values.typecode, values)))
        return t

    def note(self, event: str) -> None:
        """Add (event,) to the kernel recording, if one is on (e.g. "random": values a replay must not reuse)."""
        if self._recording is not None:
            self._recording.append((event,))

    def wrap(self, info: TensorInfo, backend: Backend) -> Tensor:
        """Make a tracked Tensor for a TensorInfo a backend produced."""
        data_id, shape, dtype = info
        d = self.data_info.get(data_id)
        size = prod(shape)
        if d is None:
            if dtype == "string":
                self.num_string_buffers += 1
                nbytes = sum(len(s.encode()) for s in backend.values(info))
                return self._new_tensor(backend, data_id, shape, dtype, nbytes, size)
            return self._new_tensor(backend, data_id, shape, dtype, _COUNTED_BYTES[dtype] * size, size)
        d[2] += 1
        t = Tensor(shape, dtype, data_id, next(self._tensor_ids), size)
        self.num_tensors += 1  # track(t), inline: this runs once per kernel output
        if self._scope is not None:
            self._scope.append(t)
        return t

    def _new_tensor(
        self, backend: Backend, data_id: int, shape: tuple[int, ...], dtype: str, nbytes: int, size: int
    ) -> Tensor:
        """A tracked Tensor of `size` elements for a new buffer of `nbytes` counted bytes (wrap and run_fast)."""
        self.data_info[data_id] = [backend, nbytes, 1, dtype, shape]
        num_bytes = self.num_bytes = self.num_bytes + nbytes
        if num_bytes > self._peak_bytes:
            self._peak_bytes = num_bytes
        t = Tensor(shape, dtype, data_id, next(self._tensor_ids), size)
        self.num_tensors += 1
        if self._scope is not None:
            self._scope.append(t)
        return t

    def track(self, t: Tensor) -> None:
        """Count a tensor and record it in the innermost tidy scope."""
        self.num_tensors += 1
        if self._scope is not None:
            self._scope.append(t)

    def share_data(self, data_id: int) -> int:
        """Add a reference to an existing data buffer (variables, reshapes) and return its id."""
        self.data_info[data_id][2] += 1
        return data_id

    def release_data(self, data_id: int) -> None:
        """Drop a reference to a data buffer, freeing it on the last one."""
        d = self.data_info[data_id]
        d[2] -= 1
        if d[2] == 0:
            del self.data_info[data_id]
            self.num_bytes -= d[1]
            if d[3] == "string":
                self.num_string_buffers -= 1
            d[0].dispose_data(data_id)

    def dispose_tensor(self, t: Tensor) -> None:
        """Free a tensor; idempotent."""
        if t.is_disposed_internal:
            return
        t.is_disposed_internal = True
        self.num_tensors -= 1
        self.release_data(t.data_id)

    def move_data(self, dst: Backend, data_id: int) -> None:
        """Move a buffer from the backend that holds it to `dst` (called lazily by dst.get_data)."""
        d = self.data_info.get(data_id)
        if d is None:
            raise ValueError(f"Data {data_id} is not tracked: it was disposed or never created")
        src = d[0]
        values = src.read_sync(data_id)
        dst.move(data_id, values, d[4], d[3])  # first: when dst cannot hold it, src still does
        src.dispose_data(data_id)
        d[0] = dst

    def read_sync(self, data_id: int) -> array:
        """The values of a buffer, read synchronously from the backend that holds it."""
        if self._recording is not None:
            self._recording.append(("read", data_id))
        return self.data_info[data_id][0].read_sync(data_id)

    async def read(self, data_id: int) -> array:
        """The values of a buffer, read without blocking where the backend can."""
        if self._recording is not None:
            self._recording.append(("read", data_id))
        return await self.data_info[data_id][0].read(data_id)

    def memory(self) -> MemoryInfo:
        """Live tensors, buffers and bytes (TF.js tf.memory())."""
        info = MemoryInfo(self.num_tensors, len(self.data_info), self.num_bytes)
        if self._backend is not None:
            for key, value in self._backend.memory().items():
                if key == "reasons":
                    info.reasons.extend(value)
                elif hasattr(info, key):
                    setattr(info, key, value)
                else:
                    info.extra[key] = value
        if self.num_string_buffers:
            info.unreliable = True
            info.reasons.append(_STRING_REASON)
        return info

    # ---- scopes --------------------------------------------------------------------------------
    # start_scope/end_scope are the one place scope state lives; op() calls the pair directly (the hottest
    # path: a bracket inline costs less than a call through tidy), everything else goes through tidy().
    def start_scope(self) -> None:
        """Open a tidy scope: tensors made inside are freed at end_scope unless returned or kept."""
        scope: list[Tensor] = []
        self._scopes.append(scope)
        self._scope = scope

    def end_scope(self, result: Any = None) -> None:
        """Close the innermost scope, freeing its tensors except those in `result` or kept."""
        scope = self._scopes.pop()
        parent = self._scopes[-1] if self._scopes else None
        self._scope = parent
        if len(scope) == 1 and scope[0] is result:
            if parent is not None:
                parent.append(result)
            return
        keep: set[int] = set()
        if type(result) is not Tensor:  # one tensor (the common case) is compared by identity, without id()
            _collect(result, keep)
        # dispose_tensor inline, once per tensor; a buffer of the active backend that only this tensor holds (the
        # common case) leaves the books here and goes to the backend in one dispose_many call at the end
        info, backend, freed, count, nbytes = self.data_info, self._backend, [], 0, 0
        try:
            for t in scope:
                if t is result or (keep and id(t) in keep):
                    if parent is not None:
                        parent.append(t)
                elif not t.kept and not t.is_disposed_internal:
                    t.is_disposed_internal = True
                    count += 1
                    data_id = t.data_id
                    d = info[data_id]
                    if d[2] == 1 and d[0] is backend and d[3] != "string":
                        del info[data_id]
                        nbytes += d[1]
                        freed.append(data_id)
                    else:
                        self.release_data(data_id)
        finally:
            self.num_tensors -= count
            self.num_bytes -= nbytes
            if freed:
                backend.dispose_many(freed)  # type: ignore[union-attr]

    def tidy(self, name_or_fn: Any, fn: Callable[[], Any] | None = None) -> Any:
        """Run fn in a scope: every tensor it makes is freed except those it returns (in tensors, lists,
        tuples or dicts) or keep()s, also when it raises. A leading name is accepted, as in TF.js."""
        if fn is None:
            fn = name_or_fn
        if not callable(fn):
            raise TypeError("tidy: expected a function (optionally after a name)")
        self.start_scope()
        try:
            result = fn()
            if hasattr(result, "__await__"):
                if hasattr(result, "close"):
                    result.close()
                raise TypeError(
                    "Cannot return a coroutine or awaitable inside of tidy(); tidy() is synchronous."
                )
        except BaseException:
            self.end_scope(None)
            raise
        self.end_scope(result)
        return result

    # ---- kernels -------------------------------------------------------------------------------
    def run_kernel(self, name: str, inputs: Any, attrs: dict[str, Any] | None = None) -> Any:
        """Run kernel `name` on the active backend: the one entry point for all math."""
        backend = self._backend or self.backend
        impl = self._kernels.get(name)
        if impl is None:
            why = left_out("kernels", name)
            raise NotImplementedError(why or f"Kernel '{name}' not registered for backend '{self.backend_name}'")
        if attrs is None:
            attrs = {}
        if self._hooked:  # a profile, tf.time, a kernel recording or a gradient tape is on
            return self._run_hooked(name, impl, backend, inputs, attrs)
        if ENV.debug:
            return self._run_instrumented(name, impl, backend, inputs, attrs)
        out = impl(backend, inputs, attrs)
        if type(out) is not TensorInfo:
            return [self.wrap(o, backend) for o in out]
        return self.wrap(out, backend)

    def run_fast(self, name: str, a: Tensor, b: Tensor | None = None) -> Tensor:
        """run_kernel(name, {"x": a}) for a unary kernel, or run_kernel(name, {"a": a, "b": b}) for a binary one
        on two tensors of one shape and dtype (all live): the kernel's `fast(backend, a, b)` (the data id of a new
        buffer of a's shape and dtype, or None where it does not apply) when it has one and nothing watches
        kernels (profile, tf.time, recording, tape, debug)."""
        fast = self._fast_now.get(name)
        if fast is not None and not ENV.debug:
            backend = self._backend or self.backend
            data_id = fast(backend, a, b)
            if data_id is not None:  # _new_tensor inline (a Python call less per op), without the peak: only
                shape, dtype, size = a.shape, a.dtype, a.size  # profile() reads it, and it is hooked
                nbytes = _COUNTED_BYTES[dtype] * size
                self.data_info[data_id] = [backend, nbytes, 1, dtype, shape]
                self.num_bytes += nbytes
                t = Tensor(shape, dtype, data_id, next(self._tensor_ids), size)
                self.num_tensors += 1
                if self._scope is not None:
                    self._scope.append(t)
                return t
        return self.run_kernel(name, {"x": a} if b is None else {"a": a, "b": b})

    def _rehook(self) -> None:
        """Recompute _hooked, the one check run_kernel makes for profiles, timing, recordings and tapes."""
        self._hooked = (
            self._profile is not None
            or self._timing_ms is not None
            or self._recording is not None
            or self._tape is not None
        )
        self._fast_now = _NO_FAST if self._hooked else self._fast

    def _run_hooked(self, name: str, impl: Any, backend: Backend, inputs: Any, attrs: dict) -> Any:
        recording, self._recording = self._recording, None  # kernels calling kernels are not recorded
        tape, self._tape = self._tape, None
        self._rehook()
        try:
            if self._profile is not None or self._timing_ms is not None or ENV.debug:
                out = self._run_instrumented(name, impl, backend, inputs, attrs)
            else:
                info = impl(backend, inputs, attrs)
                out = (
                    self.wrap(info, backend)
                    if type(info) is TensorInfo
                    else [self.wrap(o, backend) for o in info]
                )
        finally:
            self._recording = recording
            self._tape = tape
            self._rehook()
        if recording is not None:
            recording.append((name, inputs, attrs, out))
        if tape is not None:
            tape.record(name, inputs, attrs, out)
        return out

    def record_kernels(self, into: list[Any] | None) -> list[Any] | None:
        """Append (name, inputs, attrs, outputs) of each kernel run to `into` (None stops); returns the
        previous list. Reads of tensor data are noted as ('read', data_id) entries, tensors made from host
        values as ('made', tensor, values), other events as (event,) (see note)."""
        previous, self._recording = self._recording, into
        self._rehook()
        return previous

    def _run_instrumented(self, name: str, impl: Any, backend: Backend, inputs: Any, attrs: dict) -> Any:
        bytes_before, tensors_before = self.num_bytes, self.num_tensors
        self._kernel_depth += 1
        start = backend.now_ms()
        try:
            out = impl(backend, inputs, attrs)
            single = type(out) is TensorInfo
            outs = [self.wrap(o, backend) for o in ([out] if single else out)]
            if hasattr(backend, "finish"):
                backend.finish()  # make GPU time visible in the wall clock of this kernel
        finally:
            self._kernel_depth -= 1
        ms = backend.now_ms() - start
        if self._timing_ms is not None and self._kernel_depth == 0:
            self._timing_ms += ms
        record = KernelRecord(
            name,
            self.num_bytes - bytes_before,
            self.num_bytes,
            self.num_tensors - tensors_before,
            self.num_tensors,
            [list(t.shape) for t in _input_tensors(inputs)],
            [list(t.shape) for t in outs],
            ms,
        )
        if self._profile is not None:
            self._profile.append(record)
        if ENV.debug:
            self._debug_check(record, outs)
        return outs[0] if single else outs

    def _debug_check(self, record: KernelRecord, outs: list[Tensor]) -> None:
        print(
            f"webtf kernel {record.name:<24} {record.kernel_time_ms:8.3f} ms  in {record.input_shapes} "
            f"out {record.output_shapes}  +{record.bytes_added} B",
            file=sys.stderr,
        )
        if not ENV.get("CHECK_COMPUTATION_FOR_ERRORS"):
            return
        for t in outs:
            if t.dtype == "float32" and any(v != v for v in self.read_sync(t.data_id)):
                raise FloatingPointError(f"Debug mode: the result of kernel '{record.name}' contains NaN")

    # ---- tape and variables (gradients/tape.py records and backpropagates) ------------------------
    def use_tape(self, tape: Any) -> Any:
        """Record every kernel call on `tape` (tape.record(name, inputs, attrs, outputs)) until the next
        call; None stops. Returns the previous tape. Inference never pays for it: one check per kernel."""
        previous, self._tape = self._tape, tape
        self._rehook()
        return previous

    def register_variable(self, v: Tensor) -> None:
        """Add a variable under its name (tf.variable_grads differentiates all trainable ones)."""
        name = v.name  # type: ignore[attr-defined]
        if name in self.registered_variables:
            raise ValueError(f"Variable with name {name} was already registered")
        self.registered_variables[name] = v

    def dispose_variable(self, v: Tensor) -> None:
        """Unregister and free a variable."""
        name = v.name  # type: ignore[attr-defined]
        if self.registered_variables.get(name) is v:
            del self.registered_variables[name]
        self.dispose_tensor(v)

    def dispose_variables(self) -> None:
        """Free every registered variable."""
        for v in list(self.registered_variables.values()):
            self.dispose_variable(v)

    # ---- profile and time ----------------------------------------------------------------------
    async def profile(self, fn: Callable[[], Any]) -> ProfileInfo:
        """Run fn (sync or async) and report the kernels it ran and the memory it used."""
        bytes_before, tensors_before = self.num_bytes, self.num_tensors
        outer, self._profile = self._profile, []
        self._rehook()
        outer_peak, self._peak_bytes = self._peak_bytes, self.num_bytes
        try:
            result = fn()
            if inspect.isawaitable(result):
                result = await result
            records = self._profile
        finally:
            peak = self._peak_bytes
            self._profile = outer
            self._rehook()
            self._peak_bytes = max(outer_peak, peak)
        return ProfileInfo(
            self.num_bytes - bytes_before, self.num_tensors - tensors_before, peak, records, result
        )

    async def time(self, fn: Callable[[], Any]) -> TimingInfo:
        """Run fn (sync or async) and report wall time and time spent in kernels."""
        outer, self._timing_ms = self._timing_ms, 0.0
        self._rehook()
        start = time.perf_counter()
        try:
            result = fn()
            if inspect.isawaitable(result):
                await result
            kernel_ms = self._timing_ms
        finally:
            self._timing_ms = outer
            self._rehook()
        return TimingInfo((time.perf_counter() - start) * 1000.0, kernel_ms)


ENGINE = Engine()
_tensor_module._engine = ENGINE


class _EngineModule(type(sys)):
    """This module, callable as TF.js's `tf.engine()` (which returns the engine)."""

    def __call__(self) -> Engine:
        return ENGINE


sys.modules[__name__].__class__ = _EngineModule
