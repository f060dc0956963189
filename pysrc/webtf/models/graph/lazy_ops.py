"""webtf's ops as the converter handlers see them: looked up when a handler first runs, not when the table is
built, so that a custom build (build.py custom) that leaves an op's module out fails only for a model that runs
that op, with the build's error naming the kernels to add."""

from __future__ import annotations

from typing import Any


class LazyOps:
    """`ops.add`, `ops.image.resize_bilinear`, ...: a path of names under the webtf package, resolved once."""

    __slots__ = ("_path", "_fn")

    def __init__(self, path: tuple[str, ...] = ()) -> None:
        self._path = path
        self._fn: Any = None

    def __getattr__(self, name: str) -> LazyOps:
        path = (*self._path, name)
        child = _NAMED.get(path)
        if child is None:  # one object per name, so a handler that looks its op up per call resolves it once
            child = _NAMED[path] = LazyOps(path)
        return child

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        fn = self._fn
        if fn is None:
            import webtf  # the package's __getattr__ says what a custom build left out

            fn = webtf
            for name in self._path:
                fn = getattr(fn, name)
            self._fn = fn
        return fn(*args, **kwargs)


_NAMED: dict[tuple[str, ...], LazyOps] = {}
ops = LazyOps()
