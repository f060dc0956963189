"""Backend-free kernel math that every backend shares (tfjs-core's backend_util plus the cpu backend's
shared impls): conv/pool geometry, strided-slice info, concat/split and gather shapes, resize/crop
coordinates, non-max suppression, host-side fills and casts.

It works on shapes, attrs and flat sequences and imports no backend: backends share code through it, never
through each other's modules (tests/core/test_layering.py checks both).
"""

from __future__ import annotations

from .activation import ACTIVATIONS, apply_fused_activation
from .arrays import cast_values, fill_kernels, filled, scalar_as
from .concat import concat_bands, concat_shape, join_kernels, pack_shape, split_sizes
from .conv_info import (
    Conv3DInfo,
    ConvInfo,
    check_conv_args,
    check_data_format,
    check_pad,
    check_pad_3d,
    compute_conv3d_info,
    compute_conv_info,
    compute_pool3d_info,
    compute_pool_info,
    conv3d_info_from_attrs,
    conv_info_from_attrs,
    conv_kernels,
    flipped_conv_pads,
    is_identity_pool,
    parse_ints,
    parse_pair,
    parse_triple,
    pool3d_kernels,
    pool_info_from_attrs,
    pool_kernels,
    trim_pool_window,
    window_counts,
    window_taps,
)
from .gather import GatherInfo, check_gather_indices, check_gather_nd_indices, gather_info
from .image import (
    ResizeInfo,
    RotateInfo,
    bilinear_axis,
    check_box_ind,
    crop_coords,
    js_round,
    nearest_axis,
    resize_info,
    resize_ratio,
    rotate_info,
)
from .nms import NmsResult, non_max_suppression_impl
from .slice_info import SliceInfo, flat_slice, slice_info, slice_info_from_attrs, slice_info_from_size
from .warp import map_coord, rotate_sources, transform_sources

__all__ = [
    "ACTIVATIONS",
    "apply_fused_activation",
    "flipped_conv_pads",
    "window_counts",
    "ConvInfo",
    "GatherInfo",
    "NmsResult",
    "ResizeInfo",
    "RotateInfo",
    "SliceInfo",
    "bilinear_axis",
    "cast_values",
    "check_box_ind",
    "check_conv_args",
    "check_data_format",
    "check_gather_indices",
    "check_gather_nd_indices",
    "check_pad",
    "compute_conv_info",
    "compute_pool_info",
    "concat_bands",
    "rotate_info",
    "conv_kernels",
    "concat_shape",
    "join_kernels",
    "conv_info_from_attrs",
    "crop_coords",
    "fill_kernels",
    "filled",
    "flat_slice",
    "gather_info",
    "is_identity_pool",
    "js_round",
    "nearest_axis",
    "non_max_suppression_impl",
    "pack_shape",
    "parse_pair",
    "pool3d_kernels",
    "pool_kernels",
    "pool_info_from_attrs",
    "resize_info",
    "resize_ratio",
    "scalar_as",
    "slice_info",
    "slice_info_from_attrs",
    "slice_info_from_size",
    "split_sizes",
    "trim_pool_window",
    "Conv3DInfo",
    "check_pad_3d",
    "compute_conv3d_info",
    "compute_pool3d_info",
    "conv3d_info_from_attrs",
    "parse_ints",
    "parse_triple",
    "window_taps",
    "map_coord",
    "rotate_sources",
    "transform_sources",
]
