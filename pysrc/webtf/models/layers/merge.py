"""Merge layers (Add, Multiply, Concatenate, ...), normalization layers and Embedding."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...ops import binary, matmul, reduce, shape, slicing, unary
from ...ops.cast import cast
from ...ops.norm import batch_norm
from ...tensor import Tensor
from .base import Layer, Shape, ShapeArg, WeightDef, fmt_shape, known, register, single
from .metrics import l2_normalize


def _broadcast(layer: Layer, a: Shape, b: Shape) -> Shape:
    """Keras merge broadcasting of two shapes (None = unknown)."""
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out: list[int | None] = []
    for x, y in zip(a, b, strict=True):
        if x is None or y is None:
            out.append(None if x in (None, 1) or y in (None, 1) else x)
        elif x == 1 or y == 1 or x == y:
            out.append(y if x == 1 else x)
        else:
            raise layer.error(f"inputs of shapes {fmt_shape(a)} and {fmt_shape(b)} cannot be merged")
    return tuple(out)


class _Merge(Layer):
    """Elementwise merge of two or more inputs of broadcastable shapes."""

    arity: int | None = None
    #: the op that merges two inputs (a staticmethod)
    merge: Callable[[Tensor, Tensor], Tensor]

    def inputs_of(self, input_shape: ShapeArg) -> list[Shape]:
        shapes = input_shape if isinstance(input_shape, list) else [input_shape]
        want = self.arity
        if (want is None and len(shapes) < 2) or (want is not None and len(shapes) != want):
            raise self.error(f"expects {want or 'at least 2'} inputs, but got {len(shapes)}")
        return shapes

    def compute_output_shape(self, input_shape: ShapeArg) -> Shape:
        shapes = self.inputs_of(input_shape)
        out = shapes[0]
        for s in shapes[1:]:
            out = _broadcast(self, out, s)
        return out

    def call(self, inputs: list[Tensor], kwargs: dict[str, Any]) -> Tensor:
        out = inputs[0]
        for t in inputs[1:]:
            out = self.merge(out, t)
        return out


def _merge_layer(
    name: str, merge: Callable[[Tensor, Tensor], Tensor], doc: str, arity: int | None = None
) -> type[_Merge]:
    """The registered merge layer `name` (docstring `doc`) that folds its inputs with `merge`."""
    attrs = {"__doc__": doc, "__module__": __name__, "arity": arity, "merge": staticmethod(merge)}
    return register(type(name, (_Merge,), attrs))


Add = _merge_layer("Add", binary.add, "Sum of the inputs.")
Subtract = _merge_layer("Subtract", binary.sub, "First input minus the second.", arity=2)
Multiply = _merge_layer("Multiply", binary.mul, "Product of the inputs.")
Maximum = _merge_layer("Maximum", binary.maximum, "Elementwise maximum of the inputs.")
Minimum = _merge_layer("Minimum", binary.minimum, "Elementwise minimum of the inputs.")


@register
class Average(_Merge):
    """Mean of the inputs."""

    merge = staticmethod(binary.add)

    def call(self, inputs: list[Tensor], kwargs: dict[str, Any]) -> Tensor:
        return binary.mul(super().call(inputs, kwargs), 1.0 / len(inputs))


@register
class Concatenate(Layer):
    """Concatenation along `axis` (default -1)."""

    def configure(self, config: dict[str, Any]) -> None:
        self.axis = int(config.get("axis", -1))

    def compute_output_shape(self, input_shape: ShapeArg) -> Shape:
        shapes = input_shape if isinstance(input_shape, list) else [input_shape]
        if len(shapes) < 2:
            raise self.error(f"expects at least 2 inputs, but got {len(shapes)}")
        rank = len(shapes[0])
        if any(len(s) != rank for s in shapes) or not -rank <= self.axis < rank:
            raise self.error(
                f"cannot concatenate shapes {', '.join(map(fmt_shape, shapes))} on axis {self.axis}"
            )
        axis = self.axis % rank
        out = list(shapes[0])
        for s in shapes[1:]:
            for i, (x, y) in enumerate(zip(out, s, strict=True)):
                if i != axis and x is not None and y is not None and x != y:
                    raise self.error(
                        f"cannot concatenate shapes {', '.join(map(fmt_shape, shapes))} on axis {self.axis}"
                    )
                if i != axis and x is None:
                    out[i] = y
        sizes = [s[axis] for s in shapes]
        out[axis] = None if any(d is None for d in sizes) else sum(sizes)  # type: ignore[arg-type]
        return tuple(out)

    def call(self, inputs: list[Tensor], kwargs: dict[str, Any]) -> Tensor:
        return shape.concat(inputs, self.axis)


def _param_shape(rank: int, axes: list[int], x: Tensor) -> list[int]:
    """The shape that broadcasts a parameter over every axis but `axes`."""
    return [x.shape[i] if i in axes else 1 for i in range(rank)]


def _axes(layer: Layer, value: Any) -> list[int]:
    return [int(a) for a in (value if isinstance(value, list) else [value])]


class _Normalization(Layer):
    """What the normalization layers share: axis, epsilon, and the optional gamma (scale) and beta (center)."""

    def configure(self, config: dict[str, Any]) -> None:
        self.axes = _axes(self, config.get("axis", -1))
        self.epsilon = float(config.get("epsilon", 1e-3))
        self.center = bool(config.get("center", True))
        self.scale = bool(config.get("scale", True))

    def weight_dims(self, s: Shape, axes: list[int], fits: bool) -> tuple[int, ...]:
        """Adopt `axes` (the configured ones made non-negative; an error unless they `fit` s); their sizes."""
        if not fits:
            raise self.error(f"axis {self.axes} does not fit inputs of shape {fmt_shape(s)}")
        self.axes = axes
        return tuple(known(self, s, a, f"axis-{a}") for a in axes)

    def gamma_beta(self, dims: tuple[int, ...]) -> list[WeightDef]:
        """The optional gamma and beta weights."""
        return ([WeightDef("gamma", dims, initializer="ones")] if self.scale else []) + (
            [WeightDef("beta", dims, initializer="zeros")] if self.center else []
        )

    def normalize(self, x: Tensor, stat_axes: list[int]) -> tuple[Tensor, Tensor, Tensor]:
        """(y, mean, variance): x normalized by its mean and variance over stat_axes, then scaled by gamma
        and shifted by beta where the layer has them."""
        mean = reduce.mean(x, stat_axes, True)
        centered = binary.sub(x, mean)
        var = reduce.mean(unary.square(centered), stat_axes, True)
        y = binary.mul(centered, unary.rsqrt(binary.add(var, self.epsilon)))
        ps = _param_shape(x.rank, self.axes, x)
        if self.scale:
            y = binary.mul(y, shape.reshape(self.vars["gamma"], ps))
        if self.center:
            y = binary.add(y, shape.reshape(self.vars["beta"], ps))
        return y, mean, var


@register
class BatchNormalization(_Normalization):
    """Batch norm: at inference (x - moving_mean) / sqrt(moving_variance + epsilon) * gamma + beta; in training
    the batch's mean and (biased) variance, and the moving statistics move toward them by 1 - momentum."""

    def configure(self, config: dict[str, Any]) -> None:
        super().configure(config)
        self.momentum = float(config.get("momentum", 0.99))

    def build(self, input_shape: ShapeArg) -> list[WeightDef]:
        s = single(self, input_shape)
        axes = [a % len(s) if -len(s) <= a < len(s) else -1 for a in self.axes]
        dims = self.weight_dims(s, axes, -1 not in axes)
        moving = [
            WeightDef("moving_mean", dims, False, "zeros"),
            WeightDef("moving_variance", dims, False, "ones"),
        ]
        return self.gamma_beta(dims) + moving

    def affine(self) -> tuple[Tensor, Tensor]:
        """Per-channel (multiplier, offset) so that the output is x * multiplier + offset."""
        inv = unary.rsqrt(binary.add(self.vars["moving_variance"], self.epsilon))
        if self.scale:
            inv = binary.mul(inv, self.vars["gamma"])
        offset = binary.mul(self.vars["moving_mean"], unary.neg(inv))
        if self.center:
            offset = binary.add(offset, self.vars["beta"])
        return inv, offset

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        if kwargs.get("training"):
            return self.call_training(inputs)
        if self.axes == [inputs.rank - 1] and inputs.dtype == "float32":  # one FusedBatchNorm, as TF.js
            v = self.vars
            return batch_norm(
                inputs,
                v["moving_mean"],
                v["moving_variance"],
                v["beta"] if self.center else None,
                v["gamma"] if self.scale else None,
                self.epsilon,
            )
        mult, offset = self.affine()
        if self.axes != [inputs.rank - 1]:
            ps = _param_shape(inputs.rank, self.axes, inputs)
            mult, offset = shape.reshape(mult, ps), shape.reshape(offset, ps)
        return binary.add(binary.mul(inputs, mult), offset)

    def call_training(self, x: Tensor) -> Tensor:
        """Normalize with the batch's statistics and update the moving ones."""
        y, mean, var = self.normalize(x, [i for i in range(x.rank) if i not in self.axes])
        for name, stat in (("moving_mean", mean), ("moving_variance", var)):
            moving = self.vars[name]
            step = binary.mul(
                binary.sub(moving, shape.reshape(stat, list(moving.shape))), 1.0 - self.momentum
            )
            moving.assign(binary.sub(moving, step))
        return y


@register
class LayerNormalization(_Normalization):
    """(x - mean) / sqrt(variance + epsilon) * gamma + beta, statistics over `axis` of each example."""

    def build(self, input_shape: ShapeArg) -> list[WeightDef]:
        s = single(self, input_shape)
        axes = sorted({a % len(s) for a in self.axes if -len(s) <= a < len(s)})
        return self.gamma_beta(self.weight_dims(s, axes, len(axes) == len(self.axes) and 0 not in axes))

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        return self.normalize(inputs, self.axes)[0]


@register
class Embedding(Layer):
    """Rows of the embeddings matrix picked by integer inputs."""

    def configure(self, config: dict[str, Any]) -> None:
        self.input_dim = int(config["input_dim"])
        self.output_dim = int(config["output_dim"])
        self.mask_zero = bool(config.get("mask_zero", False))
        self.input_length = config.get("input_length")

    def build(self, input_shape: ShapeArg) -> list[WeightDef]:
        return [WeightDef("embeddings", (self.input_dim, self.output_dim), initializer="random_uniform")]

    def compute_output_shape(self, input_shape: ShapeArg) -> Shape:
        return (*single(self, input_shape), self.output_dim)

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        idx = inputs if inputs.dtype == "int32" else cast(inputs, "int32")
        return slicing.gather(self.vars["embeddings"], idx)


@register
class Dot(Layer):
    """Batched dot product of two inputs (rank 2 or 3) along `axes` (one for both or one each), with an
    optional L2 normalization along those axes first."""

    def configure(self, config: dict[str, Any]) -> None:
        if "axes" not in config or config["axes"] is None:
            raise self.error("the axes argument is required")
        axes = config["axes"]
        self.axes = axes if isinstance(axes, (list, tuple)) else [axes, axes]
        if len(self.axes) != 2 or not all(isinstance(a, int) and not isinstance(a, bool) for a in self.axes):
            raise self.error(f"axes must be an int or a list of 2 ints, but got {axes!r}")
        self.normalize = bool(config.get("normalize", False))

    def _axes(self, shapes: list[Shape]) -> tuple[int, int]:
        """The contracted axes, made non-negative; checked against the two shapes."""
        if len(shapes) != 2:
            raise self.error(f"expects exactly 2 inputs, but got {len(shapes)}")
        a, b = shapes
        if not (2 <= len(a) <= 3 and 2 <= len(b) <= 3):
            raise self.error(
                f"supports inputs of rank 2 or 3, but got shapes {fmt_shape(a)} and {fmt_shape(b)}"
            )
        axes = []
        for axis, s in zip(self.axes, shapes, strict=True):
            if not -len(s) <= axis < len(s) or axis % len(s) == 0:
                raise self.error(
                    f"axes {self.axes} must name non-batch axes of inputs of shapes {fmt_shape(s)}"
                )
            axes.append(axis % len(s))
        if a[axes[0]] is not None and b[axes[1]] is not None and a[axes[0]] != b[axes[1]]:
            raise self.error(
                f"dimension incompatibility: {a[axes[0]]} != {b[axes[1]]} (axes {self.axes} of shapes "
                f"{fmt_shape(a)} and {fmt_shape(b)})"
            )
        return axes[0], axes[1]

    def compute_output_shape(self, input_shape: ShapeArg) -> Shape:
        shapes = input_shape if isinstance(input_shape, list) else [input_shape]
        ax, bx = self._axes(shapes)
        a, b = shapes
        out = (*(d for i, d in enumerate(a) if i != ax), *(d for i, d in enumerate(b) if i not in (0, bx)))
        return out if len(out) > 1 else (*out, 1)

    def call(self, inputs: list[Tensor], kwargs: dict[str, Any]) -> Tensor:
        x, y = inputs
        ax, bx = self._axes([x.shape, y.shape])
        if self.normalize:
            x, y = l2_normalize(x, ax), l2_normalize(y, bx)
        # x as [batch, rest, n] and y as [batch, n, rest]: one batched matmul contracts n
        xt = shape.transpose(x, [i for i in range(x.rank) if i != ax] + [ax]) if ax != x.rank - 1 else x
        yt = shape.transpose(y, [0, bx] + [i for i in range(1, y.rank) if i != bx]) if bx != 1 else y
        n, batch = x.shape[ax], x.shape[0]
        prod = matmul.mat_mul(shape.reshape(xt, [batch, -1, n]), shape.reshape(yt, [batch, n, -1]))
        return shape.reshape(prod, [batch, *self.compute_output_shape([x.shape, y.shape])[1:]])
