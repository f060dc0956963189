"""Conv2D / DepthwiseConv2D -> BatchNormalization (-> ReLU) chains run as one fused convolution.

The batch norm is folded into the convolution's filter and bias on each call (a pass over the filter, which
is much smaller than the activations it saves two passes over), and a following relu / relu6 becomes the
fused kernel's activation. The model's weights are left untouched, so save() writes them unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...ops import binary, fused, shape
from ...tensor import Tensor
from . import activations
from .conv import Conv2D, DepthwiseConv2D
from .core import Activation, ReLU
from .merge import BatchNormalization

if TYPE_CHECKING:
    from .topology import Node


@dataclass(eq=False)
class FusedConvBN:
    """Stands for conv -> batch norm (-> activation) in an execution plan."""

    conv: Conv2D | DepthwiseConv2D
    bn: BatchNormalization
    activation: str
    nodes: tuple[Node, ...]  # the fused calls, first to last

    @property
    def name(self) -> str:
        return self.nodes[-1].layer.name

    @property
    def class_name(self) -> str:
        return "+".join(n.layer.class_name for n in self.nodes)

    def call(self, inputs: Tensor, kwargs: dict[str, Any]) -> Tensor:
        """activation(conv(x, filter * m) + bias * m + offset) where bn(y) = y * m + offset."""
        mult, offset = self.bn.affine()
        conv = self.conv
        if isinstance(conv, DepthwiseConv2D):
            kernel = conv.vars["depthwise_kernel"]
            folded = binary.mul(kernel, shape.reshape(mult, list(kernel.shape[2:])))
        else:
            folded = binary.mul(conv.vars["kernel"], mult)
        bias = conv.w("bias")
        if bias is not None:
            offset = binary.add(offset, binary.mul(bias, mult))
        op = fused.depthwise_conv2d if isinstance(conv, DepthwiseConv2D) else fused.conv2d
        return op(
            inputs,
            folded,
            conv.strides,
            conv.padding,
            "NHWC",
            conv.dilation,
            bias=offset,
            activation=self.activation,
        )


def _fused_activation(node: Node) -> str | None:
    layer = node.layer
    if isinstance(layer, ReLU) and layer.negative_slope == 0 and layer.threshold == 0:
        return {None: "relu", 6.0: "relu6"}.get(layer.max_value)
    if isinstance(layer, Activation):
        return activations.FUSED.get(layer.activation)
    return None


def find_fusions(nodes: list[Node]) -> dict[int, FusedConvBN]:
    """Fusable chains keyed by the id of their first (conv) node; each inner output must be read only once."""
    readers: dict[int, list[Node]] = {}
    for node in nodes:
        for src, _ in node.inputs:
            readers.setdefault(id(src), []).append(node)

    def only_reader(node: Node) -> Node | None:
        got = readers.get(id(node), [])
        return got[0] if len(got) == 1 and len(got[0].inputs) == 1 else None

    groups: dict[int, FusedConvBN] = {}
    for node in nodes:
        conv = node.layer
        if not isinstance(conv, (Conv2D, DepthwiseConv2D)) or conv.activation != "linear":
            continue
        bn_node = only_reader(node)
        if bn_node is None or not isinstance(bn_node.layer, BatchNormalization) or bn_node.layer.axes != [3]:
            continue
        chain, act = (node, bn_node), "linear"
        act_node = only_reader(bn_node)
        if act_node is not None and _fused_activation(act_node) is not None:
            chain, act = (*chain, act_node), _fused_activation(act_node) or "linear"
        groups[id(node)] = FusedConvBN(conv, bn_node.layer, act, chain)
    return groups
