"""Training callbacks (tfjs-layers callbacks.ts, base_callbacks.ts): hooks awaited by fit, History, early stopping.

A callback is an object with any of on_train_begin/end(logs), on_epoch_begin/end(epoch, logs),
on_batch_begin/end(batch, logs), sync or async, or a dict of such functions (TF.js's CustomCallbackArgs).
Logs hold plain numbers. fit runs them as TF.js orders them: its epoch averager, the progress display, the
user's callbacks, then History.
"""

from __future__ import annotations

import inspect
import math
import sys
import time
from collections.abc import Callable
from typing import Any

Logs = dict[str, Any]
HOOKS = ("on_train_begin", "on_train_end", "on_epoch_begin", "on_epoch_end", "on_batch_begin", "on_batch_end")


class Callback:
    """Base class: every hook does nothing; fit sets `model` and `params` before training."""

    def __init__(self) -> None:
        self.model: Any = None
        self.params: dict[str, Any] = {}

    def set_model(self, model: Any) -> None:
        self.model = model

    def set_params(self, params: dict[str, Any]) -> None:
        self.params = params

    async def on_train_begin(self, logs: Logs | None = None) -> None: ...
    async def on_train_end(self, logs: Logs | None = None) -> None: ...
    async def on_epoch_begin(self, epoch: int, logs: Logs | None = None) -> None: ...
    async def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> None: ...
    async def on_batch_begin(self, batch: int, logs: Logs | None = None) -> None: ...
    async def on_batch_end(self, batch: int, logs: Logs | None = None) -> None: ...


class CustomCallback(Callback):
    """A callback from a dict of hook functions ({"on_epoch_end": fn, ...}; TF.js's camelCase keys also work)."""

    def __init__(self, hooks: dict[str, Callable[..., Any]]) -> None:
        super().__init__()
        from .metrics import snake

        for key, fn in hooks.items():
            name = snake(key)
            if name not in HOOKS:
                raise ValueError(f"fit: callbacks: unknown hook '{key}' (known: {', '.join(HOOKS)})")
            setattr(self, name, fn)


def standardize(callbacks: Any) -> list[Any]:
    """The user's callbacks as a list of objects with hooks."""
    if callbacks is None:
        return []
    items = list(callbacks) if isinstance(callbacks, (list, tuple)) else [callbacks]
    out = []
    for c in items:
        if isinstance(c, dict):
            out.append(CustomCallback(c))
        elif any(hasattr(c, h) for h in HOOKS):
            out.append(c)
        else:
            raise TypeError(f"fit: callbacks: expected Callback objects or dicts of hooks, got {c!r}")
    return out


class CallbackList:
    """Calls one hook on every callback in order, awaiting those that return awaitables."""

    def __init__(self, callbacks: list[Any]) -> None:
        self.callbacks = callbacks

    def wants(self, hook: str) -> bool:
        """Whether any callback overrides `hook` (so fit must produce that hook's logs)."""
        base = getattr(Callback, hook)
        return any(
            hook in vars(c) or getattr(type(c), hook, base) is not base
            for c in self.callbacks
            if getattr(c, hook, None) is not None
        )

    async def call(self, hook: str, *args: Any) -> None:
        for c in self.callbacks:
            fn = getattr(c, hook, None)
            if fn is None:
                continue
            result = fn(*args)
            if inspect.isawaitable(result):
                await result


class History(Callback):
    """Records every epoch's logs: `epoch` (list of epoch numbers) and `history` ({metric: [values]})."""

    def __init__(self) -> None:
        super().__init__()
        self.epoch: list[int] = []
        self.history: dict[str, list[float]] = {}

    async def on_train_begin(self, logs: Logs | None = None) -> None:
        self.epoch = []
        self.history = {}

    async def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> None:
        self.epoch.append(epoch)
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(value)

    def __repr__(self) -> str:
        return f"History(epoch={self.epoch}, history={self.history})"


class EarlyStopping(Callback):
    """Stop training when `monitor` stops improving by min_delta for `patience` epochs (TF.js EarlyStopping)."""

    def __init__(
        self,
        monitor: str = "val_loss",
        min_delta: float = 0.0,
        patience: int = 0,
        verbose: int = 0,
        mode: str = "auto",
        baseline: float | None = None,
        restore_best_weights: bool = False,
    ) -> None:
        super().__init__()
        if restore_best_weights:
            raise ValueError("early_stopping: restore_best_weights is not supported (as in TF.js)")
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"early_stopping: mode must be 'auto', 'min' or 'max', got {mode!r}")
        self.monitor, self.patience, self.verbose, self.baseline = monitor, int(patience), verbose, baseline
        self.increasing = mode == "max" or (mode == "auto" and "acc" in monitor)
        self.min_delta = abs(float(min_delta)) * (1 if self.increasing else -1)
        self.wait, self.stopped_epoch, self.best = 0, 0, 0.0

    def _better(self, a: float, b: float) -> bool:
        return a > b if self.increasing else a < b

    async def on_train_begin(self, logs: Logs | None = None) -> None:
        self.wait, self.stopped_epoch = 0, 0
        self.best = (
            self.baseline if self.baseline is not None else (-math.inf if self.increasing else math.inf)
        )

    async def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> None:
        current = (logs or {}).get(self.monitor)
        if current is None:
            print(f"early_stopping: metric '{self.monitor}' is not in the logs {sorted(logs or {})}; skipped")
            return
        if self._better(current - self.min_delta, self.best):
            self.best, self.wait = current, 0
            return
        self.wait += 1
        if self.wait >= self.patience:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    async def on_train_end(self, logs: Logs | None = None) -> None:
        if self.stopped_epoch > 0 and self.verbose:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping.")


def early_stopping(**kwargs: Any) -> EarlyStopping:
    """tf.callbacks.early_stopping(monitor=, min_delta=, patience=, verbose=, mode=, baseline=)."""
    return EarlyStopping(**kwargs)


#: verbosity level -> callback classes fit instantiates when its verbose >= that level (TF.js's
#: CallbackConstructorRegistry)
CALLBACK_CONSTRUCTORS: dict[int, list[Callable[[], Any]]] = {}


def register_callback_constructor(verbosity_level: int, callback_constructor: Callable[[], Any]) -> None:
    """Make fit (with verbose >= verbosity_level) add callback_constructor() to its callbacks."""
    where = "register_callback_constructor"
    if not isinstance(verbosity_level, int) or isinstance(verbosity_level, bool) or verbosity_level < 0:
        raise ValueError(f"{where}: verbosity_level must be an integer >= 0, but got {verbosity_level!r}")
    if not callable(callback_constructor):
        raise TypeError(f"{where}: callback_constructor must be a class or callable, got {callback_constructor!r}")
    if any(callback_constructor in ctors for ctors in CALLBACK_CONSTRUCTORS.values()):
        raise ValueError(f"{where}: duplicate callback constructor {callback_constructor!r}")
    CALLBACK_CONSTRUCTORS.setdefault(verbosity_level, []).append(callback_constructor)


def create_callbacks(verbosity_level: int) -> list[Any]:
    """New callbacks from every constructor registered at verbosity_level or below, by level."""
    return [ctor() for level in sorted(CALLBACK_CONSTRUCTORS) if level <= verbosity_level
            for ctor in CALLBACK_CONSTRUCTORS[level]]  # fmt: skip


class ProgressLogger(Callback):
    """The progress display: a line per epoch (verbose 2, or 1 in the browser), rewritten per batch in a CPython
    terminal (verbose 1)."""

    def __init__(self, verbose: int) -> None:
        super().__init__()
        self.verbose = verbose
        self.live = verbose == 1 and sys.platform != "emscripten"
        self.start = self.last = 0.0

    async def on_epoch_begin(self, epoch: int, logs: Logs | None = None) -> None:
        self.start = self.last = time.perf_counter()
        self.epoch = epoch

    async def on_batch_end(self, batch: int, logs: Logs | None = None) -> None:
        now = time.perf_counter()
        if not self.live or now - self.last < 0.1:
            return
        self.last = now
        total = self.params.get("steps") or 0
        done = batch + 1
        width = 30
        filled = int(width * done / total) if total else 0
        bar = "=" * filled + "." * (width - filled)
        sys.stdout.write(f"\rEpoch {self.epoch + 1}/{self.params.get('epochs')} {done}/{total} [{bar}]")
        sys.stdout.flush()

    async def on_epoch_end(self, epoch: int, logs: Logs | None = None) -> None:
        seconds = time.perf_counter() - self.start
        values = " - ".join(f"{k}={v:.4g}" for k, v in (logs or {}).items())
        line = f"Epoch {epoch + 1}/{self.params.get('epochs')} {seconds * 1000:.0f}ms {values}"
        if self.live:
            sys.stdout.write("\r" + line + " " * 20 + "\n")
            sys.stdout.flush()
        else:
            print(line)
