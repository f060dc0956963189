"""The wasm backend: tensors live in the heap of TF.js's wasm binary; kernels call its exports.

Storage: each data id (the engine's, used directly as the binary's tensor id) maps to (pointer, bytes,
dtype) of a malloc'd block registered with register_tensor. Writes and reads are one bulk copy each.
`values` / `output` read and write host arrays, so every cpu kernel also runs here as a fallback.

Freeing is deferred by one step: dispose_data keeps the last disposed block, and the next allocation frees
it in the same JS call before its malloc (so the block is reused at once). memory() counts it as freed.

Small int arrays the exports take by pointer (shapes, strides, axes) are written once into a heap arena
and cached by value, so a kernel call with shapes seen before makes no extra JS call for them.
"""

from __future__ import annotations

import math
from array import array
from typing import Any

from ...dtypes import BYTES_PER_ELEMENT, TYPECODE
from ..base import Backend, TensorInfo, new_data_id
from .abi import Exports, Helpers, load_table
from .module import WasmModule

_ARENA_BYTES = 64 * 1024
_CACHE_MAX_BYTES = 1024  # larger int arrays are written per call and freed right after it
_CONSTANTS_MAX = 64  # kernel lookup tables kept (e.g. per resize geometry)


class WasmKernelError(RuntimeError):
    """A wasm export reported a failure (it printed a warning such as 'Unknown dtype'): use a fallback."""


class WasmBackend(Backend):
    """Buffers in the wasm heap; `abi` holds every export of wasm/abi.json bound once."""

    name = "wasm"

    def __init__(self, module: WasmModule, table: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.module = module
        self.table = table if table is not None else load_table()
        self._temps: list[int] = []
        helpers = Helpers(
            self._resident, self.ints, self.table, self._failed, module, self._temps, self._free_temps
        )
        self.abi = Exports(self.table, module.raw, helpers)
        self.abi_activations = frozenset(self.table["activation_enum"])
        self.abi_dtypes = dict(self.table["dtype_enum"])
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
        self.bytes_allocated = 0
        self._pending = (0, 0)  # (data id, pointer) of the disposed block the next allocation frees
        self.constants: dict[Any, tuple[TensorInfo, ...]] = {}  # see keep_constants
        self.fallbacks: dict[str, int] = {}  # kernel name -> times a native kernel fell back to the cpu one
        self._ints_cache: dict[tuple, int] = {}
        self._arena = self.malloc(_ARENA_BYTES)
        self._arena_used = 0
        self._disposed = False
        self._flags: TensorInfo | None = None  # scratch bool buffer for has_nan, grown as needed
        self._flags_capacity = 0
        self._any = self.make_output((), "bool")
        self._heap_functions: dict[str, Any] = {}

    # ---- heap blocks ----------------------------------------------------------------------------
    def malloc(self, nbytes: int) -> int:
        """A heap block of `nbytes` bytes (MemoryError when the heap cannot grow)."""
        ptr = self._malloc(nbytes)
        if not ptr:
            raise MemoryError(
                f"wasm heap exhausted: could not allocate {nbytes} bytes "
                f"(heap {self.module.heap_size()} bytes, {self.bytes_allocated} in tensors)"
            )
        return ptr & 0xFFFFFFFF

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
                self._ints_cache.clear()
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
        size = len(values)
        nbytes = size * BYTES_PER_ELEMENT[dtype]
        ptr = self._alloc(data_id, size, nbytes, *self._pending)
        self._pending = (0, 0)
        if not ptr:
            self.malloc(nbytes)  # raises the MemoryError
        ptr &= 0xFFFFFFFF
        self.data[data_id] = (ptr, nbytes, dtype)
        self.bytes_allocated += nbytes
        if nbytes:
            if values.typecode != TYPECODE[dtype]:
                values = array(TYPECODE[dtype], values)
            self.module.u8.subarray(ptr, ptr + nbytes).assign(memoryview(values).cast("B"))

    def make_output(self, shape: tuple[int, ...], dtype: str) -> TensorInfo:
        """A new, uninitialized buffer of `shape` and `dtype` registered with the binary (a kernel output)."""
        size = math.prod(shape)
        nbytes = size * BYTES_PER_ELEMENT[dtype]
        data_id = new_data_id()
        ptr = self._alloc(data_id, size, nbytes, *self._pending)
        self._pending = (0, 0)
        if not ptr:
            self.malloc(nbytes)  # raises the MemoryError
        self.data[data_id] = (ptr & 0xFFFFFFFF, nbytes, dtype)
        self.bytes_allocated += nbytes
        return TensorInfo(data_id, tuple(shape), dtype)

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
        ptr, nbytes, dtype = self.get_data(data_id)
        out = array(TYPECODE[dtype])
        if nbytes:
            out.frombytes(self.module.u8.subarray(ptr, ptr + nbytes).to_bytes())
        return out

    def dispose_data(self, data_id: int) -> None:
        rec = self.data.pop(data_id, None)
        if rec is not None:
            if self._pending[0]:
                self._release(*self._pending)
            self._pending = (data_id, rec[0])
            self.bytes_allocated -= rec[1]

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
        if self._pending[0]:
            self._release(*self._pending)
        self.abi.dispose()
        for ptr, _, _ in self.data.values():
            self._free(ptr)
        self.data.clear()
        self._free(self._arena)
        self._ints_cache.clear()
        self.bytes_allocated = 0
        self.module.release()
