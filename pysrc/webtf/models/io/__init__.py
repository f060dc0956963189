"""Model IO (TF.js tf.io): artifacts, weight (de)serialization, load/save handlers routed by URL scheme,
and model management (list, copy, move, remove) over the browser stores."""

from __future__ import annotations

from .artifacts import ModelArtifacts, ModelArtifactsInfo, WeightSpec
from .browser import browser_downloads, browser_files
from .handlers import (
    IOHandler,
    browser_http_request,
    from_memory,
    from_memory_sync,
    get_load_handler,
    get_save_handler,
    http,
    with_save_handler,
    with_save_handler_sync,
)
from .io_utils import (
    CompositeArrayBuffer,
    concatenate_array_buffers,
    decode_weights_stream,
    get_model_artifacts_for_json,
    get_model_artifacts_for_json_sync,
    get_model_artifacts_info_for_json,
    get_weight_specs,
    is_http_scheme,
    load_weights,
    weights_loader_factory,
)
from .load_options import LoadOptions
from .management import copy_model, list_models, move_model, register_manager, remove_model
from .router import get_load_handlers, get_save_handlers, register_load_router, register_save_router
from .weights import decode_weights, encode_weights

__all__ = [
    "IOHandler",
    "ModelArtifacts",
    "ModelArtifactsInfo",
    "WeightSpec",
    "browser_downloads",
    "browser_files",
    "copy_model",
    "decode_weights",
    "encode_weights",
    "from_memory",
    "get_load_handler",
    "get_load_handlers",
    "get_save_handler",
    "get_save_handlers",
    "list_models",
    "move_model",
    "register_load_router",
    "register_manager",
    "register_save_router",
    "remove_model",
    "with_save_handler",
    "CompositeArrayBuffer",
    "browser_http_request",
    "concatenate_array_buffers",
    "decode_weights_stream",
    "from_memory_sync",
    "get_model_artifacts_for_json",
    "get_model_artifacts_for_json_sync",
    "get_model_artifacts_info_for_json",
    "get_weight_specs",
    "http",
    "is_http_scheme",
    "load_weights",
    "weights_loader_factory",
    "with_save_handler_sync",
    "LoadOptions",
]


# A custom build (build.py custom) may leave the browser stores out: asking for one says how to add them.
def __getattr__(name: str) -> object:
    from ...kernel_registry import left_out_store

    raise AttributeError(left_out_store(name) or f"module {__name__!r} has no attribute {name!r}")
