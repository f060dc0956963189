"""Recurrent layers (TF.js tfjs-layers recurrent.ts): SimpleRNN, LSTM, GRU, their cells, RNN over a cell or a
stack of cells. One matmul projects the inputs of all time steps; each step then does one recurrent matmul."""

from __future__ import annotations

from typing import Any

from ...engine import ENGINE
from ...ops import binary, fused, shape
from ...ops.cast import cast
from ...ops.creation import clone, ones, random_uniform, zeros
from ...ops.matmul import mat_mul
from ...tensor import Tensor
from . import initializers
from .base import LAYERS, Layer, Shape, ShapeArg, WeightDef, fmt_shape, known, register, single
from .core import activate, parse_activation

States = list[Tensor]


def rate(config: dict[str, Any], key: str) -> float:
    """A dropout rate clipped to [0, 1] as TF.js does."""
    return min(1.0, max(0.0, float(config.get(key) or 0.0)))


def dropout_mask(shape_: list[int], rate_: float) -> Tensor:
    """1/(1-rate) where a uniform draw >= rate, else 0 (TF.js K.dropout applied to ones)."""
    keep = cast(binary.greater_equal(random_uniform(shape_), rate_), "float32")
    return binary.mul(keep, 1.0 / (1.0 - rate_))


class RNNCell(Layer):
    """One step of a recurrence. Subclasses define the gates; weights live in `store` under `prefix`."""

    gates = 1
    supports_masking = True

    def configure(self, config: dict[str, Any]) -> None:
        self.units = int(config["units"])
        if self.units <= 0:
            raise self.error(f"units must be a positive integer, but got {config['units']!r}")
        self.activation = parse_activation(self, config.get("activation", "tanh"))
        self.use_bias = bool(config.get("use_bias", True))
        self.dropout = rate(config, "dropout")
        self.recurrent_dropout = rate(config, "recurrent_dropout")
        self.state_size = [self.units]
        self.store: dict[str, Any] = self.vars
        self.prefix = ""

    def build(self, input_shape: ShapeArg) -> list[WeightDef]:
        s = single(self, input_shape)
        n = self.gates * self.units
        defs = [
            WeightDef("kernel", (known(self, s, -1, "last"), n)),
            WeightDef("recurrent_kernel", (self.units, n), initializer="orthogonal"),
        ]
        return defs + ([WeightDef("bias", (n,), initializer="zeros")] if self.use_bias else [])

    def compute_output_shape(self, input_shape: ShapeArg) -> ShapeArg:
        s = input_shape[0] if isinstance(input_shape, list) else input_shape
        return [(s[0], self.units)] + [(s[0], n) for n in self.state_size]

    def weight(self, name: str) -> Tensor | None:
        """A loaded weight of this cell (None for a bias it does not use)."""
        return self.store.get(self.prefix + name)

    # ---- the recurrence ----------------------------------------------------------------------
    def masks(self, batch: int, features: int, training: bool) -> tuple[Tensor | None, Tensor | None]:
        """The (input, recurrent) dropout masks of one call: drawn once per call (the same at every step),
        only when training."""
        drop = dropout_mask([batch, features], self.dropout) if training and 0 < self.dropout < 1 else None
        rec = None
        if training and 0 < self.recurrent_dropout < 1:
            rec = dropout_mask([batch, self.units], self.recurrent_dropout)
        return drop, rec

    def project(self, x: Tensor) -> Tensor:
        """x @ kernel + bias for 2-D x (all time steps at once)."""
        return fused.mat_mul(x, self.weight("kernel"), bias=self.weight("bias"))

    def step(self, xp: Tensor, states: States, rec_mask: Tensor | None) -> tuple[Tensor, States]:
        """(output, new states) from the projected input of one step and the previous states."""
        raise NotImplementedError

    def call(self, inputs: Any, kwargs: dict[str, Any]) -> list[Tensor]:
        """One step on [x, *states] (TF.js cell.call): returns [output, *new states]."""
        if not isinstance(inputs, list) or len(inputs) != 1 + len(self.state_size):
            got = len(inputs) if isinstance(inputs, list) else 1
            raise self.error(
                f"expects {1 + len(self.state_size)} input tensors (inputs, *states), but got {got}"
            )
        x, states = inputs[0], list(inputs[1:])

        def run() -> list[Tensor]:
            drop, rec = self.masks(x.shape[0], x.shape[-1], bool(kwargs.get("training", False)))
            xd = x if drop is None else binary.mul(x, drop)
            out, new = self.step(self.project(xd), states, rec)
            return [out, *new]

        return ENGINE.tidy(run)


@register
class SimpleRNNCell(RNNCell):
    """h = activation(x @ kernel + h_prev @ recurrent_kernel + bias)."""

    def step(self, xp: Tensor, states: States, rec_mask: Tensor | None) -> tuple[Tensor, States]:
        h = states[0] if rec_mask is None else binary.mul(states[0], rec_mask)
        out = activate(binary.add(xp, mat_mul(h, self.weight("recurrent_kernel"))), self.activation)
        return out, [out]


class GatedCell(RNNCell):
    """Cells with a recurrent_activation (TF.js default hard_sigmoid)."""

    def configure(self, config: dict[str, Any]) -> None:
        super().configure(config)
        self.recurrent_activation = parse_activation(self, config.get("recurrent_activation", "hard_sigmoid"))
        self.implementation = int(config.get("implementation") or 1)  # accepted; TF.js always runs one way


@register
class LSTMCell(GatedCell):
    """Gates i, f, c, o (kernel columns in that order); states [h, c]."""

    gates = 4

    def configure(self, config: dict[str, Any]) -> None:
        super().configure(config)
        self.unit_forget_bias = bool(config.get("unit_forget_bias", False))
        self.state_size = [self.units, self.units]

    def step(self, xp: Tensor, states: States, rec_mask: Tensor | None) -> tuple[Tensor, States]:
        h, c = states
        if rec_mask is not None:
            h = binary.mul(h, rec_mask)
        z = binary.add(xp, mat_mul(h, self.weight("recurrent_kernel")))
        zi, zf, zc, zo = shape.split(z, 4, 1)
        i = activate(zi, self.recurrent_activation)
        f = activate(zf, self.recurrent_activation)
        c = binary.add(binary.mul(f, c), binary.mul(i, activate(zc, self.activation)))
        o = activate(zo, self.recurrent_activation)
        h = binary.mul(o, activate(c, self.activation))
        return h, [h, c]


@register
class GRUCell(GatedCell):
    """Gates z, r, h (kernel columns in that order), reset applied before the recurrent matmul (TF.js has
    no reset_after)."""

    gates = 3

    def configure(self, config: dict[str, Any]) -> None:
        if config.get("reset_after"):
            raise self.error("reset_after=true is not supported (TF.js GRUCell has no reset_after)")
        super().configure(config)

    def step(self, xp: Tensor, states: States, rec_mask: Tensor | None) -> tuple[Tensor, States]:
        # TF.js multiplies the previous state by the recurrent dropout mask once and uses it everywhere
        h = states[0] if rec_mask is None else binary.mul(states[0], rec_mask)
        rk = self.weight("recurrent_kernel")
        rk_zr, rk_h = shape.split(rk, [2 * self.units, self.units], 1)
        x_zr, x_h = shape.split(xp, [2 * self.units, self.units], 1)
        zr = activate(binary.add(x_zr, mat_mul(h, rk_zr)), self.recurrent_activation)
        z, r = shape.split(zr, 2, 1)
        hh = activate(binary.add(x_h, mat_mul(binary.mul(r, h), rk_h)), self.activation)
        out = binary.add(hh, binary.mul(z, binary.sub(h, hh)))  # z * h + (1 - z) * hh
        return out, [out]


@register
class StackedRNNCells(Layer):
    """Cells applied one after another in each step; states flat, last cell first (TF.js order)."""

    supports_masking = True

    def configure(self, config: dict[str, Any]) -> None:
        self.cells = [make_cell(self, c) for c in config.get("cells") or []]
        if not self.cells:
            raise self.error("needs a non-empty list of cells")

    @property
    def state_size(self) -> list[int]:
        return [n for cell in reversed(self.cells) for n in cell.state_size]

    @property
    def units(self) -> int:
        return self.cells[-1].units


def make_cell(owner: Layer, spec: Any) -> Any:
    """A cell from a Layer object, a {class_name, config} entry or a list of them (stacked)."""
    if isinstance(spec, (RNNCell, StackedRNNCells)):
        return spec
    if isinstance(spec, list):
        return StackedRNNCells(f"{owner.name}_cells", {"cells": spec}, "StackedRNNCells")
    if isinstance(spec, dict) and "class_name" in spec:
        cls = LAYERS.get(str(spec["class_name"]))
        config = spec.get("config") or {}
        if cls is None or not issubclass(cls, (RNNCell, StackedRNNCells)):
            raise owner.error(f"cell: '{spec['class_name']}' is not an RNN cell class")
        return cls(str(config.get("name") or spec["class_name"].lower()), config, str(spec["class_name"]))
    raise owner.error(f"cell must be an RNN cell (or a list of cells), but got {str(spec)[:80]!r}")


def leaf_cells(cell: Any) -> list[RNNCell]:
    """The cells of a stack in order (a single cell alone)."""
    return list(cell.cells) if isinstance(cell, StackedRNNCells) else [cell]


@register
class RNN(Layer):
    """Runs a cell (or a stack of cells) over the time axis of [batch, time, features] inputs."""

    supports_masking = True
    input_rank = 3  # [batch, time, features] (ConvLSTM2D: 5)

    def configure(self, config: dict[str, Any]) -> None:
        self.cell = self.make_own_cell(config)
        self.cells = leaf_cells(self.cell)
        self.return_sequences = bool(config.get("return_sequences", False))
        self.return_state = bool(config.get("return_state", False))
        self.go_backwards = bool(config.get("go_backwards", False))
        self.stateful = bool(config.get("stateful", False))
        self.unroll = bool(config.get("unroll", False))  # accepted; the loop is always a Python loop
        self.states: list[Tensor] | None = None
        self.kept_states: list[list[Tensor]] = []
        self.batch_size: int | None = None
        many = len(self.cells) > 1
        for i, cell in enumerate(self.cells):
            cell.store, cell.prefix = self.vars, f"RNNCell_{i}/" if many else ""

    def make_own_cell(self, config: dict[str, Any]) -> Any:
        """The cell this layer runs (RNN: from config['cell'])."""
        if config.get("cell") is None:
            raise self.error("cell property is missing")
        return make_cell(self, config["cell"])

    @property
    def state_size(self) -> list[int]:
        return self.cell.state_size

    def build(self, input_shape: ShapeArg) -> list[WeightDef]:
        s = single(self, input_shape)
        if len(s) != 3:
            raise self.error(
                f"expects inputs of rank 3 [batch, time, features], but got shape {fmt_shape(s)}"
            )
        self.batch_size = s[0]
        defs: list[WeightDef] = []
        step: Shape = (s[0], s[2])
        for cell in self.cells:
            defs += [
                WeightDef(cell.prefix + d.name, d.shape, d.trainable, d.initializer, d.config_key)
                for d in cell.build(step)
            ]
            step = (s[0], cell.units)
        return defs

    def initial_value(self, d: WeightDef) -> Tensor:
        """An LSTM cell with unit_forget_bias starts its forget-gate bias at one (TF.js LSTMCell.build)."""
        for cell in self.cells:
            if isinstance(cell, LSTMCell) and cell.unit_forget_bias and d.name == cell.prefix + "bias":
                init = initializers.get(cell.config.get("bias_initializer") or d.initializer)
                u = cell.units
                parts = [init([u], "float32"), ones([u]), init([2 * u], "float32")]
                out = shape.concat(parts, 0)
                for t in parts:
                    t.dispose()
                return out
        return super().initial_value(d)

    def compute_output_shape(self, input_shape: ShapeArg) -> ShapeArg:
        s = single(self, input_shape)
        units = self.state_size[0]
        out: Shape = (s[0], s[1], units) if self.return_sequences else (s[0], units)
        return [out] + [(s[0], n) for n in self.state_size] if self.return_state else out

    # ---- states ------------------------------------------------------------------------------
    def reset_states(self, states: Tensor | list[Tensor] | None = None, training: bool = False) -> None:
        """Stateful layers: zero the states, or set them to `states` (TF.js resetStates)."""
        if not self.stateful:
            raise self.error("cannot reset_states() on an RNN layer that is not stateful")
        if self.batch_size is None:
            raise self.error(
                "a stateful RNN needs to know its batch size: give the first layer batch_input_shape (or the "
                "Input a batch_shape)"
            )
        old = self.states or []
        if states is None:
            for group in self.kept_states:
                for t in group:
                    t.dispose()
            self.kept_states = []
            new = [zeros([self.batch_size, n]) for n in self.state_size]
        else:
            new = states if isinstance(states, list) else [states]
            if len(new) != len(self.state_size):
                raise self.error(f"expects {len(self.state_size)} state(s), but got {len(new)}")
            for i, (t, n) in enumerate(zip(new, self.state_size, strict=True)):
                if tuple(t.shape) != (self.batch_size, n):
                    raise self.error(
                        f"state {i} must have shape {fmt_shape((self.batch_size, n))}, but got {fmt_shape(t.shape)}"
                    )
            new = [clone(t) for t in new]
        if training and states is not None:
            self.kept_states.append(old)  # the tape may still read them (TF.js keeps them until a full reset)
        else:
            for t in old:
                t.dispose()
        for t in new:
            t.kept = True
        self.states = new

    def initial_states(self, x: Tensor, given: Any) -> list[Tensor]:
        """Initial states: given ones, the stateful layer's own, or zeros."""
        if given is not None:
            states = given if isinstance(given, list) else [given]
        elif self.stateful:
            if self.states is None:
                self.reset_states()
            assert self.states is not None
            states = list(self.states)
        else:
            states = [zeros([x.shape[0], n]) for n in self.state_size]
        if len(states) != len(self.state_size):
            raise self.error(
                f"has {len(self.state_size)} state(s) but was passed {len(states)} initial state(s)"
            )
        return states

    # ---- forward -----------------------------------------------------------------------------
    def call(self, inputs: Any, kwargs: dict[str, Any]) -> Tensor | list[Tensor]:
        return ENGINE.tidy(lambda: self.forward(inputs, kwargs))

    def forward(self, inputs: Any, kwargs: dict[str, Any]) -> Tensor | list[Tensor]:
        """The forward pass (call() runs it in a tidy scope)."""
        given = kwargs.get("initial_state")
        if isinstance(inputs, list):  # [x, *initial states] (TF.js standardizeArgs)
            inputs, given = inputs[0], (inputs[1:] or given)
        x = inputs
        if x.rank != self.input_rank:
            raise self.error(
                f"expects inputs of rank 3 [batch, time, features], but got shape {fmt_shape(x.shape)}"
            )
        training = bool(kwargs.get("training", False))
        states = self.initial_states(x, given)
        seq, finals = run_cells(self.cells, x, states, kwargs.get("mask"), self.go_backwards, training)
        if self.stateful:
            self.reset_states(finals, training)
        out = shape.stack(seq, 1) if self.return_sequences else seq[-1]
        return [out, *finals] if self.return_state else out


def run_cells(
    cells: list[RNNCell], x: Tensor, states: States, mask: Tensor | None, backwards: bool, training: bool
) -> tuple[list[Tensor], States]:
    """Per-step outputs of the top cell and the final states (flat, last cell first) of a stack of cells.

    A stack runs cell by cell over the whole sequence: the same values as stepping the stack, with one input
    projection per cell.
    """
    batch, steps = x.shape[0], x.shape[1]
    step_masks = None
    if mask is not None:
        m = cast(mask, "bool")
        if m.rank == 3:
            m = shape.squeeze(m, [2])
        if backwards:
            m = shape.reverse(m, 1)
        step_masks = [shape.expand_dims(t, 1) for t in shape.unstack(m, 1)]
    per_cell: list[States] = []
    rest = list(states)
    for cell in reversed(cells):  # states are flat in reverse cell order
        n = len(cell.state_size)
        per_cell.insert(0, rest[:n])
        rest = rest[n:]
    seq_in = x
    if backwards:
        seq_in = shape.reverse(seq_in, 1)
    outs: list[Tensor] = []
    finals: list[States] = []
    for ci, cell in enumerate(cells):
        if ci > 0:
            seq_in = shape.stack(outs, 0)  # [time, batch, units]: already time-major
        else:
            seq_in = shape.transpose(seq_in, [1, 0, *range(2, seq_in.rank)])
        d = seq_in.shape[-1]
        drop, rec = cell.masks(batch, d, training)
        if drop is not None:
            seq_in = binary.mul(seq_in, drop)  # [batch, d] broadcast over time
        xp = cell.project(shape.reshape(seq_in, [steps * batch, *seq_in.shape[2:]]))
        xs = shape.unstack(shape.reshape(xp, [steps, batch, *xp.shape[1:]]), 0)
        st = per_cell[ci]
        outs = []
        for t in range(steps):
            out, new_st = cell.step(xs[t], st, rec)
            if step_masks is not None:  # a masked step keeps the states and repeats the last output
                keep = step_masks[t]
                out = binary.where(keep, out, st[0])
                new_st = [binary.where(keep, a, b) for a, b in zip(new_st, st, strict=True)]
            st = new_st
            outs.append(out)
        finals.append(st)
    flat = [t for group in reversed(finals) for t in group]
    return outs, flat


class CellLayer(RNN):
    """SimpleRNN / LSTM / GRU: an RNN whose cell is built from the layer's own config."""

    cell_class: type[RNNCell] = SimpleRNNCell

    def make_own_cell(self, config: dict[str, Any]) -> Any:
        return self.cell_class(self.name, config, self.class_name)  # errors name the layer


@register
class SimpleRNN(CellLayer):
    """Fully connected RNN: h_t = activation(x_t W + h_(t-1) U + b)."""

    cell_class = SimpleRNNCell


@register
class LSTM(CellLayer):
    """Long short-term memory (TF.js defaults: tanh, hard_sigmoid recurrent activation)."""

    cell_class = LSTMCell


@register
class GRU(CellLayer):
    """Gated recurrent unit (TF.js: reset before the recurrent matmul, hard_sigmoid recurrent activation)."""

    cell_class = GRUCell
