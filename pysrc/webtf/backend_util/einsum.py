"""Einsum's plan, shared by the backends: the operands' label terms, the output term and each label's size."""

from __future__ import annotations


def einsum_plan(equation: str, shapes: list[tuple[int, ...]]) -> tuple[list[str], str, dict[str, int]]:
    """(input terms, output term, label -> size) of a checked equation."""
    inputs, output = equation.split("->")
    terms = inputs.split(",")
    sizes = {
        c: d for term, shape in zip(terms, shapes, strict=True) for c, d in zip(term, shape, strict=True)
    }
    return terms, output, sizes
