"""The wasm backend (being written): registers its flags now; the backend and kernels follow."""

from . import flags  # noqa: F401
