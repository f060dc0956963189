"""Training a LayersModel (tfjs-layers engine/training.ts, training_tensors.ts, training_dataset.ts).

`compile(optimizer, loss, metrics)`, then `await fit(x, y, ...)` -> History, `await fit_dataset(ds, ...)`,
`evaluate`, `await train_on_batch`. One step is `optimizer.minimize` over the trainable weights of the mean
loss of a forward pass in training mode (plus the regularization losses); the batch's metrics are computed
in the same pass. Epoch logs average the batches weighted by their size, summed as tensors so that a batch
reads nothing back from the device unless a callback asks for batch logs. fit yields to the event loop
between batches (TF.js's yieldEvery) so that a page stays responsive.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ... import ops, train
from ...data.iterators import dispose_element
from ...engine import ENGINE
from ...ops.op import convert_to_tensor
from ...shapes import fmt
from ...tensor import Tensor
from ..step_capture import captured_step
from .base import fmt_shape
from .callbacks import CallbackList, History, ProgressLogger, create_callbacks, standardize
from .metrics import (
    LossFn,
    binary_accuracy,
    binary_crossentropy,
    categorical_accuracy,
    get_loss,
    get_metric,
    snake,
    sparse_categorical_accuracy,
    sparse_categorical_crossentropy,
)
from .topology import _stateful

YIELD_EVERY_MS = 125  # TF.js's 'auto' yieldEvery: at most this long between yields to the event loop

_OPTIMIZERS: dict[str, Callable[[], Any]] = {
    "sgd": lambda: train.sgd(0.01),
    "adam": lambda: train.adam(0.001),
    "rmsprop": lambda: train.rmsprop(0.001),
    "adagrad": lambda: train.adagrad(0.01),
    "adadelta": lambda: train.adadelta(1.0, 0.95),
    "adamax": lambda: train.adamax(0.002, 0.9, 0.999),
    "momentum": lambda: train.momentum(0.01, 0.0),
}  # fmt: skip  (TF.js's getOptimizer defaults)


def _tensor(value: Any, arg: str, where: str) -> Tensor:
    return value if isinstance(value, Tensor) else convert_to_tensor(value, arg, where)


@dataclass
class _Compiled:
    """What compile() resolved: the optimizer, per-output loss functions and (name, output, fn) metrics."""

    optimizer: Any
    owned: bool  # made from a name: freed with the model
    loss: Any
    losses: list[LossFn]
    metrics: list[tuple[str, int, LossFn]]
    output_names: list[str]
    loss_weights: list[float] | None = None  # one per output; None: all 1
    captures: dict = field(default_factory=dict)  # recorded training steps by signature (step_capture.py)

    @property
    def names(self) -> list[str]:
        """Log keys: 'loss', each output's '<output>_loss' when there are several (as TF.js), then each metric's."""
        per = [f"{n}_loss" for n in self.output_names] if len(self.output_names) > 1 else []
        return ["loss", *per] + [name for name, _, _ in self.metrics]


class Training:
    """compile / fit / fit_dataset / evaluate / train_on_batch, mixed into LayersModel."""

    compiled: _Compiled | None = None
    _metric_args: Any = None
    stop_training: bool = False
    is_training: bool = False

    # ---- compile ----------------------------------------------------------------------------------
    def compile(
        self, optimizer: Any = None, loss: Any = None, metrics: Any = None, loss_weights: Any = None
    ) -> None:
        """Set the optimizer (an Optimizer or a name: 'sgd', 'adam', ...), the loss (a name such as
        'meanSquaredError' or 'mean_squared_error', a function, or one per output as a list or dict by output
        name), metrics (names such as 'accuracy', or functions) and loss_weights (one factor per output, as a
        list or dict by output name, scaling its loss in the total; Keras's, TF.js 4.22 has none)."""
        model: Any = self
        if optimizer is None or loss is None:
            missing = "optimizer" if optimizer is None else "loss"
            raise ValueError(f"compile: {missing} is required")
        owned = isinstance(optimizer, str)
        if owned:
            make = _OPTIMIZERS.get(snake(optimizer).replace("_", ""))
            if make is None:
                raise ValueError(
                    f"compile: unknown optimizer '{optimizer}' (known: {', '.join(_OPTIMIZERS)})"
                )
            optimizer = make()
        elif not isinstance(optimizer, train.Optimizer):
            raise TypeError(f"compile: optimizer must be a tf.train Optimizer or a name, got {optimizer!r}")
        names = [s.name for s in model.outputs]
        losses = [get_loss(f, f"loss[{i}]") for i, f in enumerate(_per_output(loss, names, "loss"))]
        weights = None if loss_weights is None else _loss_weights(loss_weights, names)
        found: list[tuple[str, int, LossFn]] = []
        for i, out_name in enumerate(names):
            prefix = f"{out_name}_" if len(names) > 1 else ""
            for m in _metrics_for(metrics, names, i):
                found.append(self._metric(m, prefix, i, losses[i]))
        if self.compiled is not None and self.compiled.owned and self.compiled.optimizer is not optimizer:
            self.compiled.optimizer.dispose()
        self.compiled = _Compiled(optimizer, owned, loss, losses, found, names, weights)
        self._metric_args = metrics

    def _metric(self, m: Any, prefix: str, i: int, loss_fn: LossFn) -> tuple[str, int, LossFn]:
        model: Any = self
        if isinstance(m, str) and m in ("accuracy", "acc", "crossentropy", "ce"):
            acc = m in ("accuracy", "acc")
            if model.outputs[i].shape[-1] == 1 or loss_fn is binary_crossentropy:
                fn = binary_accuracy if acc else binary_crossentropy
            elif loss_fn is sparse_categorical_crossentropy:
                fn = sparse_categorical_accuracy if acc else sparse_categorical_crossentropy
            else:
                from .metrics import categorical_crossentropy

                fn = categorical_accuracy if acc else categorical_crossentropy
            return prefix + ("acc" if acc else "ce"), i, fn
        fn = get_metric(m, "metrics")
        name = m if isinstance(m, str) else getattr(fn, "__name__", "metric")
        return prefix + name, i, fn

    @property
    def optimizer(self) -> Any:
        """The compiled optimizer (None before compile)."""
        return None if self.compiled is None else self.compiled.optimizer

    def _need_compiled(self, where: str) -> _Compiled:
        if self.compiled is None:
            raise RuntimeError(
                f"{where}: you must compile a model before training/testing. Use model.compile(...)"
            )
        return self.compiled

    # ---- data -------------------------------------------------------------------------------------
    def _standardize(
        self, x: Any, y: Any, where: str, made: list[Tensor]
    ) -> tuple[list[Tensor], list[Tensor]]:
        """Inputs and targets as lists in the model's order, checked to have one sample count; array-likes
        become tensors (appended to `made`, which the caller frees)."""
        model: Any = self
        xs = _as_list(x, [s.name for s in model.inputs], "x", where, made)
        ys = _as_list(y, [s.name for s in model.outputs], "y", where, made)
        feeds = model._feeds(xs)
        ys = self._check_targets(ys, where, made)
        counts = {t.shape[0] if t.rank else None for t in feeds + ys}
        if len(counts) != 1 or None in counts:
            raise ValueError(
                f"{where}: all input arrays (x) and target arrays (y) must have the same number of samples; got "
                f"x shapes {', '.join(fmt(t.shape) for t in feeds)} and y shapes {', '.join(fmt(t.shape) for t in ys)}"
            )
        return feeds, ys

    def _check_targets(self, ys: list[Tensor], where: str, made: list[Tensor]) -> list[Tensor]:
        """Targets of a built-in loss (other than the sparse one) have their output's shape; a 1-D target of a
        [batch, 1] output becomes [batch, 1] (TF.js standardizeInputData)."""
        model: Any = self
        c = self.compiled
        out = []
        for y, spec, fn in zip(ys, model.outputs, c.losses if c else [None] * len(ys), strict=True):
            want = spec.shape
            if y.rank == 1 and len(want) == 2 and want[1] == 1:
                y = ops.reshape(y, [-1, 1])
                made.append(y)
            out.append(y)
            if fn is None or fn is sparse_categorical_crossentropy or not _builtin_loss(fn):
                continue
            if y.rank != len(want) or any(
                w is not None and w != g for w, g in zip(want[1:], y.shape[1:], strict=False)
            ):
                raise ValueError(
                    f"{where}: expected target (y) of output '{spec.name}' to have shape {fmt_shape(want)}, but got "
                    f"array with shape {fmt(y.shape)}"
                )
        return out

    def _sample_weights(
        self, ys: list[Tensor], class_weight: Any, where: str, made: list[Tensor], sample_weight: Any = None
    ) -> list[Any]:
        """Per-output sample weights: class_weight's ({class index: weight}, or one dict per output) times
        sample_weight's (a [samples] array, or one per output as a list or dict by output name)."""
        from_class = self._class_weights(ys, class_weight, where, made)
        if sample_weight is None:
            return from_class
        model: Any = self
        names = [s.name for s in model.outputs]
        per = _as_list(sample_weight, names, "sample_weight", where, made)
        out: list[Any] = []
        for t, sw, cw, name in zip(ys, per, from_class, names, strict=True):
            if tuple(sw.shape) != (t.shape[0],):
                raise ValueError(
                    f"{where}: sample_weight for output '{name}' must have shape [{t.shape[0]}] (one weight per "
                    f"sample), but got {fmt(sw.shape)}"
                )
            if sw.dtype != "float32":
                sw = ops.cast(sw, "float32")
                made.append(sw)
            if cw is not None:
                sw = ops.mul(sw, cw)
                made.append(sw)
            out.append(sw)
        return out

    def _class_weights(
        self, ys: list[Tensor], class_weight: Any, where: str, made: list[Tensor]
    ) -> list[Any]:
        if class_weight is None:
            return [None] * len(ys)
        model: Any = self
        names = [s.name for s in model.outputs]
        per = class_weight if isinstance(class_weight, (list, tuple)) else (
            [class_weight.get(n) for n in names] if len(names) > 1 and set(class_weight) <= set(names)
            else [class_weight] * len(ys)
        )  # fmt: skip
        out: list[Any] = []
        for t, cw in zip(ys, per, strict=True):
            if cw is None:
                out.append(None)
                continue
            labels = ops.arg_max(t, -1) if t.rank > 1 and t.shape[-1] > 1 else ops.reshape(t, [-1])
            values = labels.data_sync()
            labels.dispose()
            missing = sorted({int(v) for v in values} - {int(k) for k in cw})
            if missing:
                raise ValueError(f"{where}: class_weight has no weight for class(es) {missing}")
            w = ops.tensor([float(cw[int(v)] if int(v) in cw else cw[str(int(v))]) for v in values])
            made.append(w)
            out.append(w)
        return out

    # ---- one step ---------------------------------------------------------------------------------
    def _forward(self, feeds: list[Tensor], training: bool) -> list[Tensor]:
        model: Any = self
        network = model.network
        return network.run(feeds, None, training)  # type: ignore[no-any-return]

    def _losses_and_metrics(
        self, c: _Compiled, outs: list[Tensor], ys: list[Tensor], sws: list[Any]
    ) -> tuple[Tensor, list[Tensor]]:
        total: Tensor | None = None
        per: list[Tensor] = []
        weights = c.loss_weights or [1.0] * len(outs)
        for fn, out, y, sw, lw in zip(c.losses, outs, ys, sws, weights, strict=True):
            loss = fn(y, out)
            if sw is not None:
                loss = ops.mul(loss, sw if loss.rank <= 1 else ops.reshape(sw, [-1] + [1] * (loss.rank - 1)))
            if len(outs) > 1:
                per.append(ops.mean(loss))
            if lw != 1.0:
                loss = ops.mul(loss, lw)
            total = loss if total is None else ops.add(total, loss)
        assert total is not None
        values = per + [ops.mean(fn(ys[i], outs[i])) for _, i, fn in c.metrics]
        return ops.mean(total), values

    def _train_step(
        self, c: _Compiled, feeds: list[Tensor], ys: list[Tensor], sws: list[Any]
    ) -> list[Tensor]:
        """One optimizer step on one batch; returns [loss, metrics...] as scalars the caller frees."""
        model: Any = self
        metrics: list[Tensor] = []
        activity: list[Tensor] = []

        def total() -> Tensor:
            outs = self._forward(feeds, True)
            activity.extend(model.take_activity_losses())
            loss, values = self._losses_and_metrics(c, outs, ys, sws)
            metrics.extend(_keep(v) for v in values)
            reg = _regularization_loss(model, activity)
            return loss if reg is None else ops.add(loss, reg)

        def step() -> list[Tensor]:
            try:
                loss = c.optimizer.minimize(total, True, model.trainable_weights)
            except BaseException:
                for t in metrics:
                    t.dispose()
                raise
            finally:
                for t in activity + model.take_activity_losses():
                    t.dispose()
            _apply_constraints(model)
            return [loss, *metrics]

        if _stateful(model.layers):  # a stateful RNN's states change in Python: no replay
            return step()
        given = [*feeds, *ys, *[w for w in sws if w is not None]]
        return captured_step(c.captures, given, model.trainable_weights, c.optimizer, step)

    def _test_step(self, c: _Compiled, feeds: list[Tensor], ys: list[Tensor], sws: list[Any]) -> list[Tensor]:
        def run() -> list[Tensor]:
            outs = self._forward(feeds, False)
            loss, values = self._losses_and_metrics(c, outs, ys, sws)
            return [loss, *values]

        return ENGINE.tidy(run)  # type: ignore[no-any-return]

    # ---- loops ------------------------------------------------------------------------------------
    async def fit(
        self,
        x: Any,
        y: Any,
        batch_size: int | None = None,
        epochs: int = 1,
        verbose: int = 1,
        callbacks: Any = None,
        validation_split: float = 0.0,
        validation_data: Any = None,
        shuffle: bool = True,
        class_weight: Any = None,
        sample_weight: Any = None,
        initial_epoch: int = 0,
        steps_per_epoch: int | None = None,
        validation_steps: int | None = None,
        yield_every: Any = "auto",
    ) -> History:
        """Train for `epochs` epochs on x (inputs) and y (targets) in batches of batch_size (32); returns the
        History of the epoch logs ({'loss': [...], 'acc': [...], 'val_loss': [...]})."""
        c = self._need_compiled("fit")
        if self.is_training:
            raise RuntimeError("fit: cannot start training because another fit() call is ongoing")
        batch = _batch_size(batch_size, "fit")
        if not 0.0 <= float(validation_split) < 1.0:
            raise ValueError(f"fit: validation_split must be in [0, 1), got {validation_split}")
        made: list[Tensor] = []
        self.is_training = True
        try:
            feeds, ys = self._standardize(x, y, "fit", made)
            sws = self._sample_weights(ys, class_weight, "fit", made, sample_weight)
            val: tuple[list[Tensor], list[Tensor], list[Any]] | None = None
            if validation_data is not None:
                if not isinstance(validation_data, (list, tuple)) or len(validation_data) not in (2, 3):
                    raise ValueError(
                        "fit: validation_data must be (x_val, y_val) or (x_val, y_val, sample_weights)"
                    )
                vx, vy = self._standardize(
                    validation_data[0], validation_data[1], "fit(validation_data)", made
                )
                vsw = validation_data[2] if len(validation_data) == 3 else None
                val = (vx, vy, self._sample_weights(vy, None, "fit(validation_data)", made, vsw))
            elif validation_split:
                n = feeds[0].shape[0]
                split = math.floor(n * (1 - float(validation_split)))
                parts = [_split_at(t, split) for t in feeds + ys + [s for s in sws if s is not None]]
                made.extend(t for p in parts for t in p)
                k = len(feeds)
                feeds, vx = [p[0] for p in parts[:k]], [p[1] for p in parts[:k]]
                ys, vy = [p[0] for p in parts[k : k + len(ys)]], [p[1] for p in parts[k : k + len(ys)]]
                rest = iter(parts[k + len(ys) :])
                sws_parts = [None if s is None else next(rest) for s in sws]
                sws = [None if p is None else p[0] for p in sws_parts]
                val = (vx, vy, [None if p is None else p[1] for p in sws_parts])
            n = feeds[0].shape[0]
            steps = math.ceil(n / batch)

            def batches(epoch: int) -> Any:
                order = list(range(n))
                if shuffle:
                    random.shuffle(order)
                for start in range(0, n, batch):
                    size = min(batch, n - start)
                    if shuffle:
                        idx = ops.tensor(order[start : start + size], None, "int32")
                        pick = [ops.gather(t, idx) for t in feeds + ys + [s for s in sws if s is not None]]
                        idx.dispose()
                    else:
                        pick = [_rows(t, start, size) for t in feeds + ys + [s for s in sws if s is not None]]
                    yield size, pick

            return await self._loop(
                c, batches, steps, epochs, initial_epoch, verbose, callbacks, val, batch, yield_every, len(feeds),
                len(ys), [s is not None for s in sws], steps_per_epoch or steps,
            )  # fmt: skip
        finally:
            self.is_training = False
            for t in made:
                t.dispose()

    async def _loop(
        self,
        c: _Compiled,
        batches: Callable[[int], Any],
        steps: int | None,
        epochs: int,
        initial_epoch: int,
        verbose: int,
        callbacks: Any,
        val: Any,
        val_batch: int,
        yield_every: Any,
        n_in: int,
        n_out: int,
        weighted: list[bool],
        shown_steps: int | None,
        async_batches: bool = False,
    ) -> History:
        """The epoch loop both fits share: batches(epoch) yields (size, [inputs..., targets..., weights...])."""
        history = History()
        user = standardize(callbacks)
        cbs = ([ProgressLogger(verbose)] if verbose else []) + create_callbacks(verbose) + user + [history]
        val_names = ["val_" + k for k in c.names] if val else []
        params = {"epochs": epochs, "initial_epoch": initial_epoch, "steps": shown_steps, "verbose": verbose,
                  "do_validation": val is not None, "metrics": c.names + val_names}  # fmt: skip
        for cb in cbs:
            if hasattr(cb, "set_model"):
                cb.set_model(self)
            if hasattr(cb, "set_params"):
                cb.set_params(params)
        runner = CallbackList(cbs)
        batch_logs = CallbackList(user).wants("on_batch_end") or CallbackList(user).wants("on_batch_begin")
        every = _yield_ms(yield_every)
        last_yield = time.perf_counter()
        self.stop_training = False
        await runner.call("on_train_begin", {})
        sums = _Sums()
        try:
            for epoch in range(initial_epoch, epochs):
                await runner.call("on_epoch_begin", epoch, {})
                seen = 0
                index = 0
                source = batches(epoch)
                while True:
                    if async_batches:
                        try:
                            item = await source.__anext__()
                        except StopAsyncIteration:
                            break
                    else:
                        item = next(source, None)
                        if item is None:
                            break
                    size, pick = item
                    try:
                        logs: dict[str, Any] = {"batch": index, "size": size}
                        if batch_logs:
                            await runner.call("on_batch_begin", index, logs)
                        it = iter(pick[n_in + n_out :])
                        sws = [next(it) if w else None for w in weighted]
                        outs = self._train_step(c, pick[:n_in], pick[n_in : n_in + n_out], sws)
                    finally:
                        for t in pick:
                            t.dispose()
                    if batch_logs:
                        for name, t in zip(c.names, outs, strict=True):
                            logs[name] = float((await t.data())[0])
                    sums.add(outs, size)
                    seen += size
                    await runner.call("on_batch_end", index, logs)
                    index += 1
                    now = time.perf_counter()
                    if every is not None and (now - last_yield) * 1000 >= every:
                        await asyncio.sleep(0)
                        last_yield = time.perf_counter()
                    if self.stop_training or (async_batches and steps is not None and index >= steps):
                        break
                epoch_logs = await _averages(c.names, sums.totals(), seen)
                if val is not None:
                    vals = await self._evaluate_lists(c, val[0], val[1], val[2], val_batch)
                    epoch_logs.update({"val_" + k: v for k, v in zip(c.names, vals, strict=True)})
                await runner.call("on_epoch_end", epoch, epoch_logs)
                if every is not None:
                    await asyncio.sleep(0)
                    last_yield = time.perf_counter()
                if self.stop_training:
                    break
        finally:
            sums.dispose()
        await runner.call("on_train_end", {})
        return history

    async def fit_dataset(
        self,
        dataset: Any,
        epochs: int = 1,
        batches_per_epoch: int | None = None,
        verbose: int = 1,
        callbacks: Any = None,
        validation_data: Any = None,
        validation_batches: int | None = None,
        class_weight: Any = None,
        initial_epoch: int = 0,
        yield_every: Any = "auto",
    ) -> History:
        """Train on a tf.data Dataset of batches: elements {'xs': ..., 'ys': ...} or (xs, ys) pairs; returns
        a History. validation_data: a Dataset of the same form, or (x_val, y_val) tensors."""
        c = self._need_compiled("fit_dataset")
        if self.is_training:
            raise RuntimeError("fit_dataset: cannot start training because another fit() call is ongoing")
        model: Any = self
        n_in, n_out = len(model.inputs), len(model.outputs)
        made: list[Tensor] = []
        self.is_training = True
        weighted = [class_weight is not None] * n_out

        async def batches(epoch: int) -> Any:
            it = await dataset.iterator()
            try:
                async for element in it:
                    xs, ys = _element(element, "fit_dataset")
                    own: list[Tensor] = []
                    try:
                        feeds, targets = self._standardize(xs, ys, "fit_dataset", own)
                        sws = self._sample_weights(targets, class_weight, "fit_dataset", own)
                    except BaseException:
                        for t in own:
                            t.dispose()
                        raise
                    # the step frees what it is given: pass clones of the element's tensors, then free the element
                    pick = [ops.clone(t) for t in feeds + targets] + [s for s in sws if s is not None]
                    for t in own:
                        if all(t is not s for s in sws):
                            t.dispose()
                    dispose_element(element)
                    yield feeds[0].shape[0], pick
            finally:
                it.close()

        try:
            val = None
            if validation_data is not None:
                if isinstance(validation_data, (list, tuple)):
                    vx, vy = self._standardize(validation_data[0], validation_data[1], "fit_dataset", made)
                else:
                    vx, vy = await self._dataset_arrays(validation_data, validation_batches, made)
                val = (vx, vy, [None] * len(vy))
            return await self._loop(
                c, batches, batches_per_epoch, epochs, initial_epoch, verbose, callbacks, val, 32, yield_every,
                n_in, n_out, weighted, batches_per_epoch, async_batches=True,
            )  # fmt: skip
        finally:
            self.is_training = False
            for t in made:
                t.dispose()

    async def _dataset_arrays(self, dataset: Any, limit: int | None, made: list[Tensor]) -> Any:
        """A validation dataset's batches concatenated into (inputs, targets)."""
        xs_parts: list[list[Tensor]] = []
        ys_parts: list[list[Tensor]] = []
        it = await dataset.iterator()
        try:
            async for element in it:
                xs, ys = _element(element, "fit_dataset(validation_data)")
                feeds, targets = self._standardize(xs, ys, "fit_dataset(validation_data)", made)
                xs_parts.append(feeds)
                ys_parts.append(targets)
                if limit is not None and len(xs_parts) >= limit:
                    break
        finally:
            it.close()
        vx = [ops.concat([p[i] for p in xs_parts], 0) for i in range(len(xs_parts[0]))]
        vy = [ops.concat([p[i] for p in ys_parts], 0) for i in range(len(ys_parts[0]))]
        made.extend(vx + vy)
        return vx, vy

    async def _evaluate_lists(
        self, c: _Compiled, feeds: list[Tensor], ys: list[Tensor], sws: list[Any], batch: int
    ) -> list[float]:
        sums = self._test_sums(c, feeds, ys, sws, batch)
        return list((await _averages(c.names, sums, feeds[0].shape[0])).values())

    def _test_sums(
        self, c: _Compiled, feeds: list[Tensor], ys: list[Tensor], sws: list[Any], batch: int
    ) -> list[Tensor] | None:
        n = feeds[0].shape[0]
        sums = _Sums()
        try:
            for start in range(0, n, batch):
                size = min(batch, n - start)
                if size == n:
                    outs = self._test_step(c, feeds, ys, sws)
                else:
                    part = [_rows(t, start, size) for t in feeds + ys]
                    psw = [None if s is None else _rows(s, start, size) for s in sws]
                    try:
                        outs = self._test_step(c, part[: len(feeds)], part[len(feeds) :], psw)
                    finally:
                        for t in part + [s for s in psw if s is not None]:
                            t.dispose()
                sums.add(outs, size)
            return sums.totals()
        finally:
            sums.dispose()

    def evaluate(
        self, x: Any, y: Any, batch_size: int | None = None, verbose: int = 0, sample_weight: Any = None,
        steps: int | None = None,
    ) -> Tensor | list[Tensor]:  # fmt: skip
        """The loss (and metrics) on x, y in batches of batch_size (32): a scalar, or a list [loss, metrics...];
        sample_weight weights each sample's loss (a [samples] array, or one per output)."""
        c = self._need_compiled("evaluate")
        batch = _batch_size(batch_size, "evaluate")
        made: list[Tensor] = []
        try:
            feeds, ys = self._standardize(x, y, "evaluate", made)
            sws = self._sample_weights(ys, None, "evaluate", made, sample_weight)
            sums = self._test_sums(c, feeds, ys, sws, batch)
        finally:
            for t in made:
                t.dispose()
        assert sums is not None
        n = feeds[0].shape[0]
        out = [ENGINE.tidy(lambda t=t: ops.div(t, ops.scalar(float(n)))) for t in sums]
        for t in sums:
            t.dispose()
        return out[0] if len(out) == 1 else out

    async def evaluate_dataset(self, dataset: Any, batches: int | None = None, verbose: int = 0) -> Any:
        """evaluate() over a Dataset of {'xs', 'ys'} (or (xs, ys)) batches."""
        c = self._need_compiled("evaluate_dataset")
        made: list[Tensor] = []
        try:
            vx, vy = await self._dataset_arrays(dataset, batches, made)
            sums = self._test_sums(c, vx, vy, [None] * len(vy), vx[0].shape[0])
            assert sums is not None
            n = vx[0].shape[0]
            out = [ENGINE.tidy(lambda t=t: ops.div(t, ops.scalar(float(n)))) for t in sums]
            for t in sums:
                t.dispose()
        finally:
            for t in made:
                t.dispose()
        return out[0] if len(out) == 1 else out

    async def train_on_batch(
        self, x: Any, y: Any, class_weight: Any = None, sample_weight: Any = None
    ) -> float | list[float]:
        """One optimizer step on one batch; the loss (a number), or [loss, metrics...]."""
        c = self._need_compiled("train_on_batch")
        made: list[Tensor] = []
        try:
            feeds, ys = self._standardize(x, y, "train_on_batch", made)
            sws = self._sample_weights(ys, class_weight, "train_on_batch", made, sample_weight)
            outs = self._train_step(c, feeds, ys, sws)
        finally:
            for t in made:
                t.dispose()
        values = []
        for t in outs:
            values.append(float((await t.data())[0]))
            t.dispose()
        return values[0] if len(values) == 1 else values

    def predict_on_batch(self, x: Any) -> Tensor | list[Tensor]:
        """predict() on one batch, unsplit."""
        model: Any = self
        feeds = model._feeds(x)
        return model.predict(feeds, batch_size=max(1, feeds[0].shape[0] if feeds[0].rank else 1))

    # ---- saving -----------------------------------------------------------------------------------
    def training_config(self) -> dict[str, Any]:
        """model.json's trainingConfig: snake_case loss and metric names and the optimizer's class and config."""
        c = self._need_compiled("save")
        return {
            "loss": _identifiers(c.loss, "loss"),
            "metrics": _identifiers(self._metric_args, "metrics") if self._metric_args is not None else [],
            "optimizer_config": {"class_name": c.optimizer.class_name, "config": c.optimizer.get_config()},
        }

    def compile_from_config(self, config: dict[str, Any]) -> None:
        """compile() from a trainingConfig (TF.js loadTrainingConfig)."""
        for key in ("weighted_metrics", "sample_weight_mode"):
            if config.get(key) is not None:
                raise ValueError(f"trainingConfig: loading {key} is not supported")
        opt = config.get("optimizer_config") or {}
        classes = {cls.class_name: cls for cls in vars(train).values() if isinstance(cls, type)
                   and issubclass(cls, train.Optimizer) and cls is not train.Optimizer}  # fmt: skip
        cls = classes.get(opt.get("class_name"))
        if cls is None:
            raise ValueError(f"trainingConfig: unknown optimizer class {opt.get('class_name')!r}")
        self.compile(
            cls.from_config(opt.get("config") or {}), config.get("loss"), config.get("metrics"),
            config.get("loss_weights"),
        )  # fmt: skip
        assert self.compiled is not None
        self.compiled.owned = True

    load_training_config = compile_from_config  # TF.js loadTrainingConfig

    def optimizer_weights(self) -> list[tuple[str, Tensor]]:
        """The optimizer's weights (iter first, then its slots) as TF.js saves them (group 'optimizer')."""
        return [(w.name, w.tensor) for w in self._need_compiled("save").optimizer.get_weights()]

    async def set_optimizer_weights(self, pairs: list[tuple[str, Tensor]]) -> None:
        """Restore saved optimizer weights; slots are matched to the trainable weights by position, as TF.js does."""
        c = self._need_compiled("load")
        suffixes = c.optimizer.slot_suffixes
        variables = self.trainable_weights
        renamed = list(pairs[:1])
        for k, (name, t) in enumerate(pairs[1:]):
            j = k % len(variables) if variables else 0
            kind = k // len(variables) if variables else 0
            renamed.append((f"{variables[j].name}/{suffixes[kind]}" if kind < len(suffixes) else name, t))
        await c.optimizer.set_weights(renamed)

    def dispose_training(self) -> None:
        """Free an optimizer compile() made from a name (TF.js frees an owned optimizer with the model)."""
        if self.compiled is not None and self.compiled.owned:
            self.compiled.optimizer.dispose()
        self.compiled = None


# ---------------------------------------------------------------------------------------------- helpers


def _keep(t: Tensor) -> Tensor:
    t.kept = True
    return t


def _identifiers(value: Any, arg: str) -> Any:
    """Names in snake_case for a trainingConfig (a function by its registered name)."""
    if isinstance(value, dict):
        return {k: _identifiers(v, arg) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_identifiers(v, arg) for v in value]
    if isinstance(value, str):
        return snake(value)
    name = getattr(value, "__name__", None)
    if name is None:
        raise ValueError(f"save: cannot serialize the {arg} {value!r} (give it by name)")
    return snake(name)


def _per_output(value: Any, names: list[str], arg: str) -> list[Any]:
    if isinstance(value, dict):
        missing = [n for n in names if n not in value]
        if missing:
            raise ValueError(f"compile: {arg} has no entry for output(s) {missing} (outputs: {names})")
        return [value[n] for n in names]
    if isinstance(value, (list, tuple)):
        if len(value) != len(names):
            raise ValueError(
                f"compile: {arg} has {len(value)} entries, but the model has {len(names)} outputs"
            )
        return list(value)
    return [value] * len(names)


def _builtin_loss(fn: LossFn) -> bool:
    """Whether fn is one of tf.metrics' losses (a user's function may take targets of any shape)."""
    name = getattr(fn, "__name__", None)
    try:
        return isinstance(name, str) and get_loss(name) is fn
    except ValueError:
        return False


def _loss_weights(value: Any, names: list[str]) -> list[float]:
    got = _per_output(value, names, "loss_weights") if isinstance(value, (list, tuple, dict)) else None
    if got is None or not all(isinstance(w, (int, float)) and not isinstance(w, bool) for w in got):
        raise ValueError(
            f"compile: loss_weights must be a list of numbers (one per output) or a dict by output name "
            f"{names}, got {value!r}"
        )
    return [float(w) for w in got]


def _metrics_for(metrics: Any, names: list[str], i: int) -> list[Any]:
    if metrics is None:
        return []
    if isinstance(metrics, dict):
        got = metrics.get(names[i], [])
        return list(got) if isinstance(got, (list, tuple)) else [got]
    return list(metrics) if isinstance(metrics, (list, tuple)) else [metrics]


def _as_list(value: Any, names: list[str], arg: str, where: str, made: list[Tensor]) -> list[Tensor]:
    if value is None:
        raise ValueError(f"{where}: {arg} is required")
    if isinstance(value, dict):
        missing = [n for n in names if n not in value]
        if missing:
            raise ValueError(f"{where}: {arg} has no entry for {missing} (expected {names})")
        value = [value[n] for n in names]
    elif isinstance(value, Tensor) or not (
        isinstance(value, (list, tuple)) and value and _is_tensorish(value[0])
    ):
        value = [value]
    if len(value) != len(names):
        raise ValueError(f"{where}: {arg} has {len(value)} arrays, but the model has {len(names)} ({names})")
    out = []
    for v in value:
        if isinstance(v, Tensor):
            if v.is_disposed:
                raise ValueError(f"{where}: {arg} is a disposed tensor")
            out.append(v)
        else:
            t = convert_to_tensor(v, arg, where)
            if t.dtype != "float32" and t.dtype != "int32":
                t2 = ops.cast(t, "float32")
                t.dispose()
                t = t2
            made.append(t)
            out.append(t)
    return out


def _is_tensorish(v: Any) -> bool:
    return isinstance(v, Tensor) or (hasattr(v, "shape") and hasattr(v, "dtype"))


def _batch_size(value: Any, where: str) -> int:
    if value is None:
        return 32
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{where}: batch_size must be a positive integer, got {value!r}")
    return value


def _yield_ms(value: Any) -> float | None:
    if value == "auto":
        return YIELD_EVERY_MS
    if value == "batch":
        return 0.0
    if value in ("never", "epoch", None):
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
        return float(value)
    raise ValueError(
        f"fit: yield_every must be 'auto', 'batch', 'epoch', 'never' or milliseconds, got {value!r}"
    )


def _rows(t: Tensor, start: int, size: int) -> Tensor:
    if start == 0 and size == t.shape[0]:
        return ops.clone(t)
    return ops.slice(t, [start] + [0] * (t.rank - 1), [size] + [-1] * (t.rank - 1))


def _split_at(t: Tensor, at: int) -> tuple[Tensor, Tensor]:
    n = t.shape[0]
    if at <= 0 or at >= n:
        raise ValueError(f"fit: validation_split leaves {at} of {n} samples for training; use more data")
    return _rows(t, 0, at), _rows(t, at, n - at)


class _Sums:
    """Sums of per-batch [loss, metrics...] weighted by batch size, kept on the device: batches of one size are
    added as they are (one kernel per value and batch) and scaled by their size once, in totals()."""

    def __init__(self) -> None:
        self.groups: dict[int, list[Tensor]] = {}

    def add(self, outs: list[Tensor], size: int) -> None:
        """Add one batch's values (taken over: freed here or later)."""
        old = self.groups.get(size)
        if old is None:
            self.groups[size] = outs
            return
        self.groups[size] = ENGINE.tidy(lambda: [ops.add(a, b) for a, b in zip(old, outs, strict=True)])
        for t in old + outs:
            t.dispose()

    def totals(self) -> list[Tensor] | None:
        """The size-weighted sums (the caller frees them; None before any batch); starts over."""
        groups, self.groups = self.groups, {}
        if not groups:
            return None

        def total() -> list[Tensor]:
            out: list[Tensor] = []
            for size, values in groups.items():
                scaled = [ops.mul(t, float(size)) for t in values]
                out = scaled if not out else [ops.add(a, b) for a, b in zip(out, scaled, strict=True)]
            return out

        try:
            return ENGINE.tidy(total)  # type: ignore[no-any-return]
        finally:
            for values in groups.values():
                for t in values:
                    t.dispose()

    def dispose(self) -> None:
        """Free what add() holds (after an error)."""
        for values in self.groups.values():
            for t in values:
                t.dispose()
        self.groups = {}


async def _averages(names: list[str], sums: list[Tensor] | None, n: int) -> dict[str, float]:
    if sums is None:
        return {}
    logs = {}
    for name, t in zip(names, sums, strict=True):
        logs[name] = float((await t.data())[0]) / n
        t.dispose()
    return logs


def _element(element: Any, where: str) -> tuple[Any, Any]:
    if isinstance(element, dict) and "xs" in element and "ys" in element:
        return element["xs"], element["ys"]
    if isinstance(element, (list, tuple)) and len(element) == 2:
        return element[0], element[1]
    raise ValueError(
        f"{where}: dataset elements must be {{'xs': ..., 'ys': ...}} or (xs, ys), got {type(element)}"
    )


def _regularization_loss(model: Any, activity: list[Tensor]) -> Tensor | None:
    """The summed regularization losses of the layers' weights and outputs (None when there are none)."""
    losses = model.regularization_losses() + activity
    return ops.add_n(losses) if len(losses) > 1 else (losses[0] if losses else None)


def _apply_constraints(model: Any) -> None:
    """Apply the layers' weight constraints after a step."""
    model.apply_constraints()
