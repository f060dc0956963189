"""The environment: named flags with lazily evaluated defaults, overridable at run time (tf.env())."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

FlagValue = bool | int | float | str
Evaluator = Callable[[], FlagValue]


class Environment:
    """A registry of flags (TF.js names) evaluated on first read and overridable with `set`."""

    def __init__(self) -> None:
        self._registry: dict[str, tuple[Evaluator, Callable[[FlagValue], None] | None]] = {}
        self._flags: dict[str, FlagValue] = {}
        #: the DEBUG flag's value as a plain attribute: the engine reads it on every kernel call
        self.debug = False
        #: counts set() and reset() calls: what depends on flag values (captured model runs) checks it
        self.version = 0

    def register_flag(
        self, name: str, evaluator: Evaluator, set_hook: Callable[[FlagValue], None] | None = None
    ) -> None:
        """Register flag `name` whose default is computed by `evaluator` on first read."""
        self._registry[name] = (evaluator, set_hook)

    def _evaluate(self, name: str) -> Any:
        """Run flag `name`'s evaluator: its value, or an awaitable of it."""
        if name not in self._registry:
            raise ValueError(f"Cannot evaluate flag '{name}': no evaluation function found.")
        return self._registry[name][0]()

    def get(self, name: str) -> FlagValue:
        """The value of flag `name`, evaluating its default on first read."""
        try:
            return self._flags[name]
        except KeyError:
            pass
        value = self._evaluate(name)
        self._store(name, value)
        return value

    def _typed(self, name: str, ok: Callable[[FlagValue], bool], what: str) -> Any:
        """The value of flag `name`, a TypeError unless ok(value) holds."""
        value = self.get(name)
        if not ok(value):
            raise TypeError(f"Flag '{name}' is {value!r}, not {what}")
        return value

    def get_bool(self, name: str) -> bool:
        """The value of a boolean flag."""
        return self._typed(name, lambda v: isinstance(v, bool), "a bool")

    def get_number(self, name: str) -> float:
        """The value of a numeric flag."""
        return self._typed(name, lambda v: isinstance(v, (int, float)) and not isinstance(v, bool), "a number")

    async def get_async(self, name: str) -> FlagValue:
        """The value of flag `name`, awaiting its evaluator when that returns an awaitable (TF.js getAsync)."""
        if name in self._flags:
            return self._flags[name]
        value = self._evaluate(name)
        if hasattr(value, "__await__"):
            value = await value
        self._store(name, value)
        return value

    def get_string(self, name: str) -> str:
        """The value of a string flag."""
        return self._typed(name, lambda v: isinstance(v, str), "a string")

    def evaluate_flag(self, name: str) -> FlagValue:
        """Evaluate flag `name`'s default now (an override is replaced), store and return it."""
        value = self._evaluate(name)
        if hasattr(value, "__await__"):
            raise ValueError(f"Flag {name} cannot be synchronously evaluated. Please use get_async() instead.")
        self._store(name, value)
        return value

    def set(self, name: str, value: FlagValue) -> None:
        """Override flag `name`; its set hook (if any) runs first."""
        if name not in self._registry:
            raise ValueError(f"Cannot set flag '{name}' as it has not been registered.")
        hook = self._registry[name][1]
        if hook is not None:
            hook(value)
        self._store(name, value)
        self.version += 1

    def _store(self, name: str, value: FlagValue) -> None:
        self._flags[name] = value
        if name == "DEBUG":
            self.debug = bool(value)

    def set_flags(self, flags: dict[str, FlagValue]) -> None:
        """Override several flags at once."""
        for name, value in flags.items():
            self.set(name, value)

    def get_flags(self) -> dict[str, FlagValue]:
        """The flags read or set so far."""
        return dict(self._flags)

    @property
    def features(self) -> dict[str, FlagValue]:
        """Every registered flag, evaluated."""
        return {name: self.get(name) for name in self._registry}

    def reset(self) -> None:
        """Forget all evaluated and overridden values; defaults are evaluated again on next read."""
        self._flags.clear()
        self.debug = False
        self.version += 1

    def __repr__(self) -> str:
        return f"Environment({self._flags!r})"


ENV = Environment()


def env() -> Environment:
    """The global environment (TF.js tf.env())."""
    return ENV


def _is_browser() -> bool:
    return sys.platform == "emscripten"


def _register_core_flags() -> None:
    ENV.register_flag("IS_BROWSER", _is_browser)
    ENV.register_flag("IS_NODE", lambda: False)
    ENV.register_flag("IS_TEST", lambda: False)
    ENV.register_flag("PROD", lambda: False)
    ENV.register_flag("DEBUG", lambda: False, _warn_debug)
    ENV.register_flag("CHECK_COMPUTATION_FOR_ERRORS", lambda: True)
    ENV.register_flag("KEEP_INTERMEDIATE_TENSORS", lambda: False)
    ENV.register_flag("WRAP_TO_IMAGEBITMAP", lambda: False)  # tf.browser.from_pixels_async wraps sources


def _warn_debug(value: Any) -> None:
    if value:
        print(
            "webtf: debug mode is on: every kernel is timed and logged and its outputs are downloaded "
            "to check for NaN. This slows everything down.",
            file=sys.stderr,
        )


_register_core_flags()
