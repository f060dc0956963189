"""The tf.math namespace: confusion_matrix (a composite of one_hot and mat_mul, as TF.js)."""

from __future__ import annotations

from ..tensor import Tensor
from .cast import cast
from .checks import is_int
from .matmul import mat_mul
from .op import TensorLike, convert_to_tensor, op
from .shape import transpose
from .slicing import one_hot

__all__: list[str] = []


@op
def confusion_matrix(labels: TensorLike, predictions: TensorLike, num_classes: int) -> Tensor:
    """int32 [num_classes, num_classes] counts of (label, prediction) pairs."""
    name = "confusion_matrix"
    lab = convert_to_tensor(labels, "labels", name)
    pred = convert_to_tensor(predictions, "predictions", name)
    if not (is_int(num_classes) and num_classes > 0):
        raise ValueError(f"Error in {name}: num_classes must be a positive integer, but got {num_classes}")
    if lab.rank != 1:
        raise ValueError(f"Error in {name}: expected the rank of labels to be 1, but got {lab.rank}")
    if pred.rank != 1:
        raise ValueError(f"Error in {name}: expected the rank of predictions to be 1, but got {pred.rank}")
    if lab.shape[0] != pred.shape[0]:
        raise ValueError(
            f"Error in {name}: mismatch in the number of examples: {lab.shape[0]} vs. {pred.shape[0]}. Labels and "
            "predictions should have the same number of elements."
        )
    one_lab = one_hot(cast(lab, "int32"), num_classes)
    one_pred = one_hot(cast(pred, "int32"), num_classes)
    return cast(mat_mul(transpose(cast(one_lab, "float32")), cast(one_pred, "float32")), "int32")
