"""Wrapper layers (TF.js wrappers.ts): Bidirectional over an RNN, TimeDistributed over any layer; and Masking."""

from __future__ import annotations

from typing import Any

from ...engine import ENGINE
from ...ops import binary, reduce, shape
from ...ops.cast import cast
from ...tensor import Tensor
from .base import LAYERS, Layer, ShapeArg, WeightDef, fmt_shape, register, single
from .recurrent import RNN

MERGE_MODES = ("concat", "sum", "mul", "ave", None)


def inner_layer(owner: Layer, spec: Any, name: str | None = None, **overrides: Any) -> Layer:
    """The wrapped layer from config['layer'] ({class_name, config} or a Layer object)."""
    if isinstance(spec, Layer):
        spec = {"class_name": spec.class_name, "config": {**spec.config, "name": spec.name}}
    if not isinstance(spec, dict) or "class_name" not in spec:
        raise owner.error(f"layer must be a layer ({{class_name, config}}), but got {str(spec)[:80]!r}")
    cls = LAYERS.get(str(spec["class_name"]))
    if cls is None:
        raise owner.error(f"unsupported wrapped layer class '{spec['class_name']}'")
    config = {**(spec.get("config") or {}), **overrides}
    base = str(config.get("name") or str(spec["class_name"]).lower())
    return cls(name or base, config, str(spec["class_name"]))


@register
class Bidirectional(Layer):
    """An RNN run forwards and backwards over the sequence, the two outputs merged (merge_mode)."""

    supports_masking = True

    def configure(self, config: dict[str, Any]) -> None:
        spec = config.get("layer")
        base = inner_layer(self, spec)
        if not isinstance(base, RNN):
            raise self.error(f"layer must be an RNN layer, but got {base.class_name}")
        back = not base.go_backwards
        self.forward_layer = inner_layer(self, spec, f"forward_{base.name}")
        self.backward_layer = inner_layer(self, spec, f"backward_{base.name}", go_backwards=back)
        assert isinstance(self.forward_layer, RNN) and isinstance(self.backward_layer, RNN)
        self.merge_mode = config.get("merge_mode", "concat")
        if self.merge_mode not in MERGE_MODES:
            raise self.error(
                f"merge_mode must be one of concat, sum, mul, ave or null, but got {self.merge_mode!r}"
            )
        self.return_sequences = base.return_sequences
        self.return_state = base.return_state
        self.stateful = base.stateful
        for sub in (self.forward_layer, self.backward_layer):
            for cell in sub.cells:  # both halves read their weights from this layer, under their own names
                cell.store, cell.prefix = self.vars, f"{sub.name}/{cell.prefix}"

    def build(self, input_shape: ShapeArg) -> list[WeightDef]:
        # the halves' cells already name their weights '<half name>/<weight>'
        return self.forward_layer.build(input_shape) + self.backward_layer.build(input_shape)

    def compute_output_shape(self, input_shape: ShapeArg) -> ShapeArg:
        shapes = self.forward_layer.compute_output_shape(input_shape)
        out, states = (shapes[0], shapes[1:]) if isinstance(shapes, list) else (shapes, [])
        if self.merge_mode == "concat":
            merged = [(*out[:-1], None if out[-1] is None else 2 * out[-1])]
        elif self.merge_mode is None:
            merged = [out, out]
        else:
            merged = [out]
        if self.return_state:
            return merged + states + states
        return merged[0] if len(merged) == 1 else merged

    def reset_states(self) -> None:
        """Reset both halves (stateful layers)."""
        self.forward_layer.reset_states()
        self.backward_layer.reset_states()

    def call(self, inputs: Any, kwargs: dict[str, Any]) -> Tensor | list[Tensor]:
        return ENGINE.tidy(lambda: self._forward(inputs, kwargs))

    def _forward(self, inputs: Any, kwargs: dict[str, Any]) -> Tensor | list[Tensor]:
        given = kwargs.get("initial_state")
        if isinstance(inputs, list):
            inputs, given = inputs[0], (inputs[1:] or given)
        fw_kwargs, bw_kwargs = dict(kwargs), dict(kwargs)
        if given:
            if len(given) % 2:
                raise self.error("initial_state must hold the states of both underlying RNNs (an even count)")
            half = len(given) // 2
            fw_kwargs["initial_state"], bw_kwargs["initial_state"] = list(given[:half]), list(given[half:])
        y = self.forward_layer.forward(inputs, fw_kwargs)
        y_rev = self.backward_layer.forward(inputs, bw_kwargs)
        states: list[Tensor] = []
        if self.return_state:
            assert isinstance(y, list) and isinstance(y_rev, list)
            states = y[1:] + y_rev[1:]
            y, y_rev = y[0], y_rev[0]
        assert isinstance(y, Tensor) and isinstance(y_rev, Tensor)
        if self.return_sequences:
            y_rev = shape.reverse(y_rev, 1)
        if self.merge_mode == "concat":
            out: list[Tensor] = [shape.concat([y, y_rev], -1)]
        elif self.merge_mode == "sum":
            out = [binary.add(y, y_rev)]
        elif self.merge_mode == "ave":
            out = [binary.mul(binary.add(y, y_rev), 0.5)]
        elif self.merge_mode == "mul":
            out = [binary.mul(y, y_rev)]
        else:
            out = [y, y_rev]
        out += states
        return out[0] if len(out) == 1 else out


@register
class TimeDistributed(Layer):
    """Applies the wrapped layer to every time step of [batch, time, ...] inputs (one batched call)."""

    supports_masking = True

    def configure(self, config: dict[str, Any]) -> None:
        self.layer = inner_layer(self, config.get("layer"))
        self.vars = self.layer.vars  # the inner layer reads the weights loaded under this layer's name

    def build(self, input_shape: ShapeArg) -> list[WeightDef]:
        s = single(self, input_shape)
        if len(s) < 3:
            raise self.error(f"expects inputs of rank >= 3 [batch, time, ...], but got shape {fmt_shape(s)}")
        defs = self.layer.build((s[0], *s[2:]))
        self.layer.built = True
        return defs

    def compute_output_shape(self, input_shape: ShapeArg) -> ShapeArg:
        s = single(self, input_shape)
        child = self.layer.compute_output_shape((s[0], *s[2:]))
        if isinstance(child, list):
            raise self.error(f"the wrapped layer '{self.layer.name}' must have one output")
        return (child[0], s[1], *child[1:])

    def call(self, inputs: Any, kwargs: dict[str, Any]) -> Tensor:
        x = inputs[0] if isinstance(inputs, list) else inputs
        if x.rank < 3:
            raise self.error(
                f"expects inputs of rank >= 3 [batch, time, ...], but got shape {fmt_shape(x.shape)}"
            )

        def run() -> Tensor:
            b, t = x.shape[0], x.shape[1]
            inner_kwargs = {k: v for k, v in kwargs.items() if k != "mask"}
            y = self.layer.call(shape.reshape(x, [b * t, *x.shape[2:]]), inner_kwargs)
            if isinstance(y, list):
                y = y[0]
            return shape.reshape(y, [b, t, *y.shape[1:]])

        return ENGINE.tidy(run)


@register
class Masking(Layer):
    """Zeroes the time steps whose features all equal mask_value, and masks them for the layers after it."""

    supports_masking = True

    def configure(self, config: dict[str, Any]) -> None:
        self.mask_value = float(config.get("mask_value", 0.0) or 0.0)

    def compute_mask(self, inputs: Tensor) -> Tensor:
        """bool [batch, time]: true where any feature differs from mask_value."""
        return reduce.any(binary.not_equal(inputs, self.mask_value), -1)

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        def run() -> Tensor:
            keep = reduce.any(binary.not_equal(inputs, self.mask_value), -1, keep_dims=True)
            return binary.mul(inputs, cast(keep, inputs.dtype))

        return ENGINE.tidy(run)
