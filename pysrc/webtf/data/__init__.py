"""tf.data: datasets of tensors and plain values, read lazily and asynchronously (TF.js tf.data).

ds = tf.data.array([{"xs": x, "ys": y} for x, y in pairs]).shuffle(100, seed=1).batch(32)
async for batch in ds:
    ...                       # batch["xs"], batch["ys"]: stacked tensors the loop owns
"""

from __future__ import annotations

from .csv import ColumnConfig, CSVDataset, csv
from .dataset import Dataset, array, generator
from .dataset import zip_datasets as zip  # TF.js names it zip
from .iterators import LazyIterator

__all__ = ["CSVDataset", "ColumnConfig", "Dataset", "LazyIterator", "array", "csv", "generator", "zip"]
