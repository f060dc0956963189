"""The wasm backend: tensors live in the heap of TF.js's wasm binary; kernels call its exports.

Storage: each data id (the engine's, used directly as the binary's tensor id) maps to (pointer, bytes,
dtype) of a malloc'd block registered with register_tensor. Writes and reads are one bulk copy each.
`values` / `output` read and write host arrays, so every cpu kernel also runs here as a fallback.

Freeing is deferred: dispose_data keeps the last disposed block, and the next allocation frees it in the
same JS call before its malloc (so the block is reused at once); blocks disposed while one is pending (the
end of a tidy scope) are queued and freed _FREE_BATCH at a time in one JS call. memory() counts them as freed.

Small int arrays the exports take by pointer (shapes, strides, axes) are written once into a heap arena
and cached by value, so a kernel call with shapes seen before makes no extra JS call for them.

The eager hot path (element-wise kernels) makes one JS call per kernel: `bind` makes, once per (kernel,
shapes, dtype), a JS function with the export's shape and dtype arguments bound; `call_bound` calls it with
the output's id, the pending block and the input ids, and it frees the pending block, mallocs and registers
the output and calls the export. Bound functions hold arena pointers, so they are forgotten with the arena.

Deferred calls: a bound call whose inputs the binary holds or will hold is queued instead (`enqueue`: four ints,
no JS call) and the queue runs in ONE JS call (`flush`), which mallocs, registers and computes the outputs in
order. Queued outputs live in `queued` rather than `data` until then, so any other use of one
(get_data: reads, pointers, export wrappers, moves) flushes first; blocks disposed while calls are queued are
released in the queue, after the calls that read them. The queue also runs when it is full, before the int
arena starts over and in finish() (profile, tf.time). `defer = False` makes every call at once.
"""

from __future__ import annotations

import math
import sys
from array import array
from typing import Any

from ...dtypes import BYTES_PER_ELEMENT, TYPECODE
from ...shapes import fmt
from ..base import Backend, TensorInfo, new_data_id, new_info
from .abi import Exports, Helpers, load_table
from .module import WasmModule

_ARENA_BYTES = 64 * 1024
_CACHE_MAX_BYTES = 1024  # larger int arrays are written per call and freed right after it
_CONSTANTS_MAX = 64  # kernel lookup tables kept (e.g. per resize geometry)
#: the largest heap block: malloc and the kernels take sizes as 32-bit ints, and a 4 GiB heap holds little more
_MAX_BLOCK_BYTES = 2**31 - 2**16
_FREE_BATCH = 64  # disposed blocks freed per JS call (see the module docstring)
#: (malloc, register_tensor, dispose_data, free) -> binders: binder(export, nbytes, size, *fixed) -> a function
#: (id, old id, old ptr, *ids) that releases the old block when there is one, mallocs + registers the output
#: and calls the export with the ids and the fixed arguments in their places; it returns the pointer (0: the
#: heap is full, nothing was called)
_BINDERS_JS = """(m, r, u, f) => {
  const out = (id, size, n, oid, op) => {
    if (oid) { u(oid); f(op); }
    const p = m(n); if (p) r(id, size, p); return p; };
  return {
    unary: (fn, n, size, dt) => (id, oid, op, x) => {
      const p = out(id, size, n, oid, op); if (p) fn(x, dt, id); return p; },
    binary: (fn, n, size, ap, al, bp, bl, dt) => (id, oid, op, a, b) => {
      const p = out(id, size, n, oid, op); if (p) fn(a, ap, al, b, bp, bl, dt, id); return p; },
  };
}"""


_QUEUE_INTS = 4 * 2048  # four ints per queued call or release; a full queue runs (see flush)
_DEFER_MAX_BYTES = 1 << 16  # larger outputs are made at once (a heap failure then names the kernel's call)
#: (u, f) -> run(fns, queue, results): runs the queue (a Python array('i') of [k, id, a, b] entries: k >= 0
#: calls bound function fns[k](id, 0, 0, a, b), which makes output `id`; -1 releases queued output `id`; -2
#: releases heap block (id, pointer a)), writes the (id, pointer) pairs of the outputs still live into results
#: and returns their count; throws when the heap is full
_QUEUE_JS = """(u, f) => (fns, qp, rp) => {
  const qb = qp.getBuffer("i32"), q = qb.data, made = new Map();
  try {
    for (let i = 0; i < q.length; i += 4) {
      const k = q[i], id = q[i + 1];
      if (k >= 0) {
        const p = fns[k](id, 0, 0, q[i + 2], q[i + 3]);
        if (!p) throw new Error("the wasm heap is exhausted");
        made.set(id, p);
      } else if (k === -1) { u(id); f(made.get(id)); made.delete(id); }
      else { u(id); f(q[i + 2]); }
    }
  } finally { qb.release(); }
  const rb = rp.getBuffer("i32"), r = rb.data;
  let j = 0;
  for (const [id, p] of made) { r[j++] = id; r[j++] = p; }
  rb.release();
  return j >> 1;
}"""


class WasmKernelError(RuntimeError):
    """A wasm export reported a failure (it printed a warning such as 'Unknown dtype'): use a fallback."""


class WasmTrapError(RuntimeError):
    """A wasm export trapped or aborted; the backend re-instantiated the binary (see WasmBackend.recover)."""


class WasmBackend(Backend):
    """Buffers in the wasm heap; `abi` holds every export of wasm/abi.json bound once."""

    name = "wasm"

    def __init__(self, module: WasmModule, table: dict[str, Any] | None = None) -> None:
        super().__init__()
        #: complex64 and string buffers stay on the host (no wasm kernel reads them; TF.js's wasm backend
        #: keeps string bytes in JS too)
        self.host: dict[int, Any] = {}
        self.table = table if table is not None else load_table()
        self.abi_activations = frozenset(self.table["activation_enum"])
        self.abi_dtypes = dict(self.table["dtype_enum"])
        self._temps: list[int] = []
        self.bytes_allocated = 0
        self.constants: dict[Any, tuple[TensorInfo, ...]] = {}  # see keep_constants
        self.fallbacks: dict[str, int] = {}  # kernel name -> times a native kernel fell back to the cpu one
        self.resets: list[str] = []  # why the module was re-instantiated (see recover), oldest first
        self._ints_cache: dict[tuple, int] = {}
        self.bound: dict[Any, tuple] = {}  # see bind
        self.binding = True  # element-wise kernels use bind / call_bound (off while a replay is planned)
        self.defer = True  # bound calls are queued (enqueue / flush)
        self.lost: set[int] = set()  # queued outputs whose queue failed (see flush)
        self._disposed = False
        self._recovering = False
        self._bind(module)

    def _bind(self, module: WasmModule) -> None:
        """Bind every export of `module` and set up its heap state (arena, scratch buffers)."""
        self.module = module
        helpers = Helpers(
            self._resident, self.ints, self.table, self._failed, module, self._temps, self._free_temps,
            self._trapped, self.data, self._ints_cache,
        )  # fmt: skip
        self.abi = Exports(self.table, module.raw, helpers)
        self._malloc = self.abi.malloc
        self._free = self.abi.free
        self._register = self.abi.register_tensor
        self._unregister = self.abi.dispose_data
        self._alloc, self._release = module.fused_calls(
            self._malloc, self._register, self._unregister, self._free
        )
        self._copy = module.strided_copier()
        self._gather = module.row_gatherer()
        self._convert = module.converter()
        self._pending = (0, 0)  # (data id, pointer) of the disposed block the next allocation frees
        self._frees: list[int] = []  # data id, pointer, ... of disposed blocks queued for _flush_frees
        self._release_many = module.batch_releaser(self._unregister, self._free)
        self._free_list = self.malloc(_FREE_BATCH * 8)
        self._ints_cache.clear()
        self.bound.clear()
        self._arena = self.malloc(_ARENA_BYTES)
        self._arena_used = 0
        self._arena_restarts = 0
        self._flags: TensorInfo | None = None  # scratch bool buffer for has_nan, grown as needed
        self._flags_capacity = 0
        self._any = self.make_output((), "bool")
        self._heap_functions: dict[str, Any] = {}
        self._binders: Any = None
        self._queue: list[int] = []  # see enqueue
        self.queued: dict[int, tuple] = {}  # data id -> the bound function (see bind) of queued outputs
        self._queue_frees: set[int] = set()  # data ids of heap blocks the queue releases
        self._fns: Any = None  # the bound functions the queue calls (a JS array)
        self._run_queue: Any = None

    # ---- heap blocks ----------------------------------------------------------------------------
    def malloc(self, nbytes: int) -> int:
        """A heap block of `nbytes` bytes (MemoryError when the heap cannot grow)."""
        self._check_bytes(nbytes)
        ptr = self._malloc(nbytes)
        if not ptr and self._frees:
            self._flush_frees()
            ptr = self._malloc(nbytes)
        if not ptr:
            self._exhausted(nbytes)
        return ptr & 0xFFFFFFFF

    def _check_bytes(self, nbytes: int, shape: tuple[int, ...] | None = None) -> None:
        """Refuse a block larger than one wasm tensor may take, before it reaches the heap: malloc takes a
        32-bit size, so a larger request would be truncated (and the kernel would write past the block)."""
        if nbytes > _MAX_BLOCK_BYTES:
            what = f"a tensor of shape {fmt(shape)}" if shape is not None else "a block"
            raise MemoryError(
                f"wasm backend: {what} would take {nbytes} bytes, more than the {_MAX_BLOCK_BYTES} one "
                "block of the wasm heap may take"
            )

    def _exhausted(self, nbytes: int) -> None:
        raise MemoryError(
            f"wasm heap exhausted: could not allocate {nbytes} bytes (heap {self.module.heap_size()} bytes, "
            f"{self.bytes_allocated} in tensors); nothing was allocated"
        )

    def _allocate(self, data_id: int, size: int, dtype: str, shape: tuple[int, ...]) -> int:
        """A heap block for `size` elements of `dtype` (a tensor of `shape`), registered as `data_id` (the
        pending disposed block is freed first). On failure nothing is allocated and the bookkeeping is as it
        was."""
        nbytes = size * BYTES_PER_ELEMENT[dtype]
        if nbytes > _MAX_BLOCK_BYTES:
            self._check_bytes(nbytes, shape)
        pending, self._pending = self._pending, (0, 0)
        try:
            ptr = self._alloc(data_id, size, nbytes, *pending)
        except Exception as e:
            self._trapped(e, "malloc")
            raise
        if not ptr and self._frees:
            self._flush_frees()
            ptr = self._alloc(data_id, size, nbytes, 0, 0)
        if not ptr:
            self._exhausted(nbytes)
        ptr &= 0xFFFFFFFF
        self.data[data_id] = (ptr, nbytes, dtype)
        self.bytes_allocated += nbytes
        return ptr

    def ints(self, seq: Any) -> int:
        """A heap pointer to `seq` as int32 values (cached by value; see the module docstring)."""
        key = seq if type(seq) is tuple else tuple(seq)
        ptr = self._ints_cache.get(key)
        if ptr is None:
            ptr = self._write_ints(key)
        return ptr

    def _write_ints(self, key: tuple) -> int:
        data = memoryview(array("i", key)).cast("B")
        n = len(data)
        if n > _CACHE_MAX_BYTES:
            ptr = self.malloc(n)
            self._temps.append(ptr)
        else:
            if self._arena_used + n > _ARENA_BYTES:
                # Start over; a single call writes far less than half the arena, so no pointer it is
                # still about to pass gets overwritten.
                if self._queue:
                    self.flush()  # queued calls use the old pointers
                self._ints_cache.clear()
                self.bound.clear()  # their functions hold arena pointers
                if self._fns is not None:
                    self._fns.length = 0
                self._arena_restarts += 1
                self._arena_used = 0
            ptr = self._arena + self._arena_used
            self._arena_used += (n + 7) & ~7
            self._ints_cache[key] = ptr
        self.module.write(ptr, data)
        return ptr

    def _free_temps(self) -> None:
        for ptr in self._temps:
            self._free(ptr)
        self._temps.clear()

    def _trapped(self, error: Exception, export: str) -> None:
        """An export trapped or aborted: raise WasmTrapError once the module is replaced (recover)."""
        reason = f"the wasm export {export} failed ({type(error).__name__}: {error})"
        if self._recovering:  # the fresh instance failed too: give up rather than loop
            raise WasmTrapError(
                f"{reason} while re-instantiating the wasm module: use another backend"
            ) from error
        try:
            copied = self.recover(reason)
        except Exception as e:
            raise WasmTrapError(
                f"{reason}, and the wasm module could not be re-instantiated ({e}): use another backend"
            ) from error
        raise WasmTrapError(
            f"{reason}; the wasm module was re-instantiated and its {copied} live tensors copied into it"
        ) from error

    def recover(self, reason: str) -> int:
        """Replace the module by a fresh instance of the binary, for when its state can no longer be trusted
        (a trap or abort can leave its allocator and XNNPACK's caches broken). The engine's live tensors are
        read from the old heap (a trap leaves it readable) and written into the new one under the same ids;
        kernel scratch buffers and caches start over. Returns how many tensors were copied."""
        old = self.module
        self._queue.clear()  # a failed queue lost its outputs already (see flush)
        self.queued.clear()
        tracked = getattr(self.mover, "data_info", {})
        old.refresh_views()
        keep = [(i, old.read(ptr, n), dtype) for i, (ptr, n, dtype) in self.data.items() if i in tracked]
        fresh = old.fresh()
        old.release()
        self.data.clear()
        self.constants.clear()
        self._temps.clear()
        self.bytes_allocated = 0
        self._recovering = True
        try:
            self._bind(fresh)
            for data_id, raw, dtype in keep:
                values = array(TYPECODE[dtype])
                values.frombytes(raw)
                self.move(data_id, values, (len(values),), dtype)
        finally:
            self._recovering = False
        self.resets.append(reason)
        print(f"webtf: {reason}; the wasm module was re-instantiated", file=sys.stderr)
        return len(keep)

    def _resident(self, data_id: int) -> int:
        if data_id not in self.data:
            self.get_data(data_id)
        return data_id

    def _failed(self, since: int, export: str, outs: tuple) -> None:
        for out in outs:
            self.dispose_data(out.data_id)
        message = self.module.recent_log(since) or "it printed a warning"
        raise WasmKernelError(f"wasm kernel {export} failed: {message}")

    # ---- storage ----------------------------------------------------------------------------------
    def move(self, data_id: int, values: array, shape: tuple[int, ...], dtype: str) -> None:
        if dtype == "string" or dtype == "complex64":
            self.host[data_id] = values
            return
        if data_id in self._frees[::2]:  # moved away and back: its old block's free, queued by data id, goes first
            self._flush_frees()
        if data_id in self._queue_frees:  # likewise for a release in the queue
            self.flush()
        ptr = self._allocate(data_id, len(values), dtype, shape)
        if len(values):
            if values.typecode != TYPECODE[dtype]:
                values = array(TYPECODE[dtype], values)
            self.module.write(ptr, memoryview(values).cast("B"))

    def make_output(self, shape: tuple[int, ...], dtype: str) -> TensorInfo:
        """A new, uninitialized buffer of `shape` and `dtype` registered with the binary (a kernel output)."""
        data_id = new_data_id()
        self._allocate(data_id, math.prod(shape), dtype, shape)
        return TensorInfo(data_id, tuple(shape), dtype)

    def bind(self, key: Any, kind: str, export: str, shape: tuple[int, ...], dtype: str, *fixed: Any) -> tuple:
        """Cache under `key` and return (fn, shape, nbytes, k, dtype): fn a JS function that makes an output of
        `shape` and `dtype` and calls `export` on it with the `fixed` arguments bound (ints; a tuple of ints passes
        as a heap pointer and its length), binder `kind` of _BINDERS_JS placing them (see call_bound), k its index
        in the queue's function list (see enqueue; -1 for outputs too large to queue). fn is None for an empty
        output."""
        size = math.prod(shape)
        nbytes = size * BYTES_PER_ELEMENT[dtype]
        self._check_bytes(nbytes, shape)
        fn = None
        if size:
            from pyodide.code import run_js  # type: ignore[import-not-found]

            if self._binders is None:
                self._binders = run_js(_BINDERS_JS)(self._malloc, self._register, self._unregister, self._free)
            args: list[int] = []
            while not args:
                restarts = self._arena_restarts
                for v in fixed:
                    args.extend((self.ints(v), len(v)) if type(v) is tuple else (v,))
                if self._arena_restarts != restarts:  # an earlier pointer may be overwritten later: again
                    args.clear()
            fn = getattr(self._binders, kind)(getattr(self.module.raw, export), nbytes, size, *args)
        k = -1
        if fn is not None and nbytes <= _DEFER_MAX_BYTES:
            if self._fns is None:
                self._fns = run_js("[]")
                self._run_queue = run_js(_QUEUE_JS)(self._unregister, self._free)
            k = self._fns.push(fn) - 1
        bound = self.bound[key] = (fn, shape, nbytes, k, dtype)
        return bound

    def enqueue(self, bound: tuple, a: int, b: int = 0) -> int:
        """The data id of a new output of the function of `bind` (k >= 0) on tensor ids a (and b), which the
        binary holds or will hold (in `data` or `queued`): queued, made when the queue runs (see flush)."""
        data_id = new_data_id()
        queue = self._queue
        queue += (bound[3], data_id, a, b)
        self.queued[data_id] = bound
        self.bytes_allocated += bound[2]
        if len(queue) >= _QUEUE_INTS:
            self.flush()
        return data_id

    def flush(self) -> None:
        """Run the queued calls and releases in one JS call; their outputs move from `queued` to `data`."""
        queue = self._queue
        if not queue:
            return
        made, self.queued = self.queued, {}
        calls = array("i", queue)
        queue.clear()
        self._queue_frees.clear()
        pairs = array("i", bytes(8 * len(made)))
        module = self.module
        logged = module.log_count
        try:
            count = self._run_queue(self._fns, calls, pairs)
        except Exception as e:
            self.lost.update(made)
            self._trapped(e, "queued kernels")
            raise
        data = self.data
        for i in range(0, 2 * count, 2):
            bound = made[pairs[i]]
            data[pairs[i]] = (pairs[i + 1] & 0xFFFFFFFF, bound[2], bound[4])
        if module.log_count != logged:  # not WasmKernelError: the kernel running now would fall back for it
            message = module.recent_log(logged)
            raise RuntimeError(f"wasm: a queued element-wise kernel failed: {message}")

    def call_bound(self, bound: tuple, export: str, dtype: str, *ids: int) -> TensorInfo:
        """A new output made by a function of `bind` called with input tensor ids `ids` (resident here): one
        JS call that also frees the pending disposed block."""
        fn, shape, nbytes, _, _ = bound
        if fn is None:
            return self.make_output(shape, dtype)
        data_id = new_data_id()
        pending, self._pending = self._pending, (0, 0)
        module = self.module
        logged = module.log_count
        try:
            ptr = fn(data_id, pending[0], pending[1], *ids)
            if not ptr and self._frees:  # the heap is full: free the queued blocks and try again
                self._flush_frees()
                ptr = fn(data_id, 0, 0, *ids)
        except Exception as e:
            self._trapped(e, export)
            raise
        if not ptr:
            self._exhausted(nbytes)
        self.data[data_id] = (ptr & 0xFFFFFFFF, nbytes, dtype)
        self.bytes_allocated += nbytes
        out = new_info((data_id, shape, dtype))
        if module.log_count != logged:
            self._failed(logged, export, (out,))
        return out

    def adopt(self, ptr: int, shape: tuple[int, ...], dtype: str) -> TensorInfo:
        """Take ownership of a block the binary malloc'd (e.g. NonMaxSuppression results) as a tensor."""
        size = math.prod(shape)
        nbytes = size * BYTES_PER_ELEMENT[dtype]
        data_id = new_data_id()
        self._register(data_id, size, ptr)
        self.data[data_id] = (ptr, nbytes, dtype)
        self.bytes_allocated += nbytes
        return TensorInfo(data_id, tuple(shape), dtype)

    def read_sync(self, data_id: int) -> array:
        host = self.host.get(data_id)
        if host is not None:
            return host[:]
        ptr, nbytes, dtype = self.get_data(data_id)
        out = array(TYPECODE[dtype])
        if nbytes:
            out.frombytes(self.module.u8.subarray(ptr, ptr + nbytes).to_bytes())
        return out

    def finish(self) -> None:
        """Run the queue (profile and tf.time call it after each kernel: a queued call's time is its own)."""
        if self._queue:
            self.flush()

    def get_data(self, data_id: int) -> Any:
        """The (pointer, bytes, dtype) of `data_id`, running the queue first when it makes it."""
        try:
            return self.data[data_id]
        except KeyError:
            if data_id in self.queued:
                self.flush()
            elif data_id in self.lost:
                raise WasmTrapError(
                    f"wasm: tensor data {data_id} was lost: the queued kernels making it failed"
                ) from None
            else:
                self.mover.move_data(self, data_id)
            return self.data[data_id]

    def dispose_data(self, data_id: int) -> None:
        bound = self.queued.pop(data_id, None)
        if bound is not None:  # made in the queue: released there
            queue = self._queue
            queue += (-1, data_id, 0, 0)
            self.bytes_allocated -= bound[2]
            if len(queue) >= _QUEUE_INTS:
                self.flush()
            return
        rec = self.data.pop(data_id, None)
        if rec is None:
            self.host.pop(data_id, None)
            self.lost.discard(data_id)
            return
        if self._queue:  # queued calls may read it: release it after them
            queue = self._queue
            queue += (-2, data_id, (rec[0] ^ 0x80000000) - 0x80000000, 0)  # int32 (heaps past 2 GiB)
            self._queue_frees.add(data_id)
            self.bytes_allocated -= rec[1]
            if len(queue) >= _QUEUE_INTS:
                self.flush()
            return
        pending, self._pending = self._pending, (data_id, rec[0])
        if pending[0]:
            frees = self._frees
            frees += pending
            if len(frees) >= 2 * _FREE_BATCH:
                self._flush_frees()
        self.bytes_allocated -= rec[1]

    def dispose_many(self, data_ids: list[int]) -> None:
        """dispose_data for each; the queued outputs among them (the common case at a tidy's end) released in
        the queue in one pass, the rest one by one."""
        queued = self.queued
        if not queued:
            return super().dispose_many(data_ids)
        pop, queue, rest, nbytes = queued.pop, self._queue, [], 0
        for data_id in data_ids:
            bound = pop(data_id, None)
            if bound is None:
                rest.append(data_id)
            else:
                queue += (-1, data_id, 0, 0)
                nbytes += bound[2]
        self.bytes_allocated -= nbytes
        super().dispose_many(rest)
        if len(queue) >= _QUEUE_INTS:
            self.flush()

    def _flush_frees(self) -> None:
        """Free the queued disposed blocks (one JS call)."""
        frees = self._frees
        self.module.write(self._free_list, memoryview(array("I", frees)).cast("B"))
        try:
            self._release_many(self._free_list, len(frees) // 2)
        except Exception as e:
            frees.clear()
            self._trapped(e, "free")
        frees.clear()

    def has_nan(self, x: Any) -> bool:
        """True when float32 tensor x holds a NaN: IsNan into a reused flag buffer, Any over it, one read."""
        size = math.prod(x.shape)
        if size > self._flags_capacity:
            if self._flags is not None:
                self.dispose_data(self._flags.data_id)
            self._flags = self.make_output((max(size, 2 * self._flags_capacity),), "bool")
            self._flags_capacity = self._flags.shape[0]
        self.abi.IsNan(x, "float32", self._flags)
        self.abi.Any(self._flags, size, self._any)
        return bool(self.module.u8[self.data[self._any.data_id][0]])

    def any_true(self, flags: Any) -> bool:
        """True when bool tensor `flags` holds a true: Any into has_nan's byte, one read (the compiled replay
        keeps the check as a guard, as has_nan's)."""
        self.abi.Any(flags, math.prod(flags.shape), self._any)
        return bool(self.module.u8[self.data[self._any.data_id][0]])

    def copy(
        self, src: int, dst: int, counts: Any, src_strides: Any, dst_strides: Any, itemsize: int
    ) -> None:
        """Copy elements within the heap: element (i0, i1, ...) of the nested `counts` goes from src + sum(i *
        src_strides) to dst + sum(i * dst_strides) (strides in elements). Contiguous runs move in bulk."""
        dims = [(c, s, d) for c, s, d in zip(counts, src_strides, dst_strides, strict=True) if c != 1]
        run = itemsize
        while dims and dims[-1][1] * itemsize == run and dims[-1][2] * itemsize == run:
            run *= dims.pop()[0]
        merged: list[tuple[int, int, int]] = []
        for c, s, d in dims:
            if merged and merged[-1][1] == c * s and merged[-1][2] == c * d:
                merged[-1] = (merged[-1][0] * c, s, d)
            else:
                merged.append((c, s, d))
        plan = tuple(v for c, s, d in merged for v in (c, s * itemsize, d * itemsize))
        self._copy(src, dst, run, self.ints(plan) if plan else 0, len(merged))

    def gather(self, x: Any, indices: Any, axis: int) -> TensorInfo:
        """x's slices along `axis` at int32 `indices` (flattened; all in range: the caller checks)."""
        shape = x.shape
        itemsize = BYTES_PER_ELEMENT[x.dtype]
        outer, dim, inner = math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1 :])
        n = math.prod(indices.shape)
        out = self.make_output((*shape[:axis], n, *shape[axis + 1 :]), x.dtype)
        if outer and n and inner:
            run = inner * itemsize
            idx = self.pointer(indices)
            self._gather(self.pointer(x), self.pointer(out), run, outer, dim * run, idx, n, run)
        return out

    def cast(self, x: Any, dtype: str) -> TensorInfo:
        """x converted to `dtype` as a new buffer (one JS call; typed-array conversion rules)."""
        out = self.make_output(x.shape, dtype)
        n = math.prod(x.shape)
        if n:
            codes = self.abi_dtypes
            self._convert(self.pointer(x), self.pointer(out), n, codes[x.dtype], codes[dtype])
        return out

    def keep_constants(self, key: Any, tensors: tuple[TensorInfo, ...]) -> None:
        """Keep kernel lookup tables (index / weight buffers) for reuse; the cache is bounded."""
        if len(self.constants) >= _CONSTANTS_MAX:
            for old in self.constants.values():
                for t in old:
                    self.dispose_data(t.data_id)
            self.constants.clear()
        self.constants[key] = tensors

    def heap_function(self, source: str) -> Any:
        """The JS function made by `source`, a `(memory) => (...args) => ...` over the heap (compiled once):
        kernels the binary has no export for run there, on the tensors' heap addresses."""
        fn = self._heap_functions.get(source)
        if fn is None:
            from pyodide.code import run_js  # type: ignore[import-not-found]

            fn = self._heap_functions[source] = run_js(source)(self.module.memory)
        return fn

    def pointer(self, t: Any) -> int:
        """The heap address of a tensor's buffer (moving it here first if needed)."""
        return self.get_data(t.data_id)[0]

    # ---- the two methods every cpu kernel uses (so the cpu table doubles as a fallback) -----------
    def values(self, t: Any) -> array:
        """The flat values of an input tensor (a fresh host copy)."""
        return self.read_sync(t.data_id)

    def output(self, values: array, shape: tuple[int, ...], dtype: str) -> TensorInfo:
        """Copy host `values` into the heap as a new buffer and describe it for the engine."""
        data_id = new_data_id()
        self.move(data_id, values, shape, dtype)
        return TensorInfo(data_id, shape, dtype)

    # ---- misc ---------------------------------------------------------------------------------------
    def memory(self) -> dict[str, Any]:
        return {
            "unreliable": False,
            "num_bytes_in_wasm_heap": self.module.heap_size(),
            "num_bytes_in_wasm_tensors": self.bytes_allocated,
        }

    def dispose(self) -> None:
        if self._disposed:
            return
        self._disposed = True
        self._queue.clear()
        self.queued.clear()
        if self._frees:
            self._flush_frees()
        if self._pending[0]:
            self._release(*self._pending)
        self._free(self._free_list)
        self.abi.dispose()
        for ptr, _, _ in self.data.values():
            self._free(ptr)
        self.data.clear()
        self._free(self._arena)
        self._ints_cache.clear()
        self.bytes_allocated = 0
        self.module.release()


def enqueue_fast(name: str, backend: WasmBackend, a: Any, b: Any = None) -> int | None:
    """The element-wise kernels' `fast` variant (Engine.run_fast), with `name` bound (a partial): the data id of
    a queued call of kernel `name` bound before on a (and b, of a's shape) when that call queues and keeps a's
    dtype and its inputs are here; else None. WasmBackend.enqueue inline: one Python frame per op."""
    bound = backend.bound.get((name, a.shape, a.dtype) if b is None else (name, a.shape, a.shape, a.dtype))
    if bound is None or bound[3] < 0 or bound[4] != a.dtype or not (backend.defer and backend.binding):
        return None
    data, queued, ia, ib = backend.data, backend.queued, a.data_id, 0 if b is None else b.data_id
    if not (ia in data or ia in queued) or (b is not None and not (ib in data or ib in queued)):
        return None
    data_id = new_data_id()
    queue = backend._queue
    queue += (bound[3], data_id, ia, ib)
    queued[data_id] = bound
    backend.bytes_allocated += bound[2]
    if len(queue) >= _QUEUE_INTS:
        backend.flush()
    return data_id
