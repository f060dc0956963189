"""Backend-independent ops, one module per family; each checks arguments and calls ENGINE.run_kernel.

Each family lists its ops in its `__all__`: the star imports re-export exactly those (static tools follow
them) and `__all__` below gathers them for `from webtf.ops import *`.
"""

from __future__ import annotations

from . import binary as _binary
from . import conv as _conv
from . import conv3d as _conv3d
from . import creation as _creation
from . import extra as _extra
from . import fused, image, linalg
from . import math_ns as math
from . import matmul as _matmul
from . import misc as _misc
from . import norm as _norm
from . import pool as _pool
from . import pool_more as _pool_more
from . import products as _products
from . import random as _random_ops
from . import reduce as _reduce
from . import scan as _scan
from . import scatter as _scatter
from . import shape as _shape
from . import slicing as _slicing
from . import softmax as _softmax
from . import sort as _sort
from . import spatial as _spatial
from . import unary as _unary
from . import variants as _variants
from .binary import *  # noqa: F403
from .cast import cast
from .conv import *  # noqa: F403
from .conv3d import *  # noqa: F403
from .creation import *  # noqa: F403
from .extra import *  # noqa: F403
from .matmul import *  # noqa: F403
from .misc import *  # noqa: F403
from .norm import *  # noqa: F403
from .pool import *  # noqa: F403
from .pool_more import *  # noqa: F403
from .products import *  # noqa: F403
from .random import *  # noqa: F403
from .reduce import *  # noqa: F403
from .scan import *  # noqa: F403
from .scatter import *  # noqa: F403
from .shape import *  # noqa: F403
from .slicing import *  # noqa: F403
from .softmax import *  # noqa: F403
from .sort import *  # noqa: F403
from .spatial import *  # noqa: F403
from .unary import *  # noqa: F403
from .variants import *  # noqa: F403

__all__ = ["fused", "image", "cast", "linalg", "math"]
__all__ += _creation.__all__
__all__ += _unary.__all__
__all__ += _binary.__all__
__all__ += _reduce.__all__
__all__ += _softmax.__all__
__all__ += _scan.__all__
__all__ += _sort.__all__
__all__ += _matmul.__all__
__all__ += _conv.__all__
__all__ += _pool.__all__
__all__ += _shape.__all__
__all__ += _slicing.__all__
__all__ += image.__all__
__all__ += _spatial.__all__
__all__ += _extra.__all__
__all__ += _conv3d.__all__
__all__ += _norm.__all__
__all__ += _products.__all__
__all__ += _scatter.__all__
__all__ += _variants.__all__
__all__ += _random_ops.__all__
__all__ += _misc.__all__
__all__ += _pool_more.__all__

# complex64, spectral / signal, string, sparse and ragged ops (issue 15, ops-types)
from . import spectral as _spectral  # noqa: E402
from .spectral import *  # noqa: E402, F403

__all__ += _spectral.__all__
__all__ += ["hann_window", "hamming_window", "frame", "stft"]
from . import strings as _strings  # noqa: E402
from .spectral import frame, hamming_window, hann_window, stft  # noqa: E402
from .strings import string  # noqa: E402, F401

__all__ += _strings.__all__
from . import sparse as _sparse  # noqa: E402
from .sparse import *  # noqa: E402, F403

__all__ += _sparse.__all__


# A custom build (build.py custom) leaves ops out: code that holds them (the converter's op tables) still imports,
# and calling one raises naming the kernels to add. The full build has every op: a missing name is an error.
def __getattr__(name: str) -> object:
    from ..kernel_registry import CUSTOM_BUILD, LeftOutOp

    if CUSTOM_BUILD is None or name.startswith("_"):
        raise AttributeError(f"module 'webtf.ops' has no attribute '{name}'")
    return LeftOutOp(name)
