"""The one runner of graph and layers models, and the input specs and checks they share.

A model type plans the calls that compute the wanted outputs, in order (graph nodes, layer calls);
compile_steps() gives every value a slot and each call the slots whose last reader it is; run() makes the
calls, each in its own tidy scope, and frees every slot once read for the last time. A step may keep a replay per
input signature: the kernels its first run made, run again without the op layer (graph nodes do).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ..engine import ENGINE
from ..tensor import Tensor
from .capture import STATS, Capture, hooks_active, recorded, ref_of, signature, take

#: (producer key, output index): where a step reads one input
Ref = tuple[Hashable, int]


@dataclass(frozen=True)
class TensorSpec:
    """A model input or output: name, shape and dtype. An unknown dimension is -1 in a GraphModel's specs
    (as TF.js GraphModel reports it) and None in a LayersModel's (TF.js layers' null); shape None: unknown
    rank."""

    name: str
    shape: list[int | None] | None
    dtype: str

    def accepts(self, shape: Sequence[int]) -> bool:
        """Whether a tensor of `shape` fits: same rank, same size wherever this spec's is known."""
        spec = self.shape
        if spec is None:
            return True
        return len(spec) == len(shape) and all(
            d is None or d == -1 or d == s for d, s in zip(spec, shape, strict=True)
        )

    def example_shape(self) -> list[int]:
        """This shape with 1 for each unknown dimension ([1] for an unknown rank), as warmup() feeds it."""
        return [1 if d is None or d == -1 else d for d in (self.shape or [1])]


def named_inputs(inputs: Any, specs: list[TensorSpec], wrong_count: Callable[[int], str]) -> dict[str, Any]:
    """Model inputs given as a Tensor, a list in the order of `specs` or a dict by name -> {name: value}."""
    if isinstance(inputs, Tensor):
        inputs = [inputs]
    if isinstance(inputs, (list, tuple)):
        if len(inputs) != len(specs):
            raise ValueError(wrong_count(len(inputs)))
        return {spec.name: t for spec, t in zip(specs, inputs, strict=True)}
    if not isinstance(inputs, dict):
        raise TypeError(f"inputs must be a Tensor, a list of Tensors or a dict, not {type(inputs).__name__}")
    return inputs


def live_input(name: str, t: Any) -> Tensor:
    """`t` if it is a tensor that is not disposed."""
    if not isinstance(t, Tensor) or t.is_disposed:
        raise TypeError(f"Input '{name}' must be a live Tensor")
    return t


class Step:
    """One call of a plan: the key its outputs go by, the (key, index) pairs it reads and what to say in
    an error ("node 'x' (op Conv2D)"); compile_steps() fills in slots. Subclasses define call(inputs)."""

    __slots__ = ("key", "inputs", "label", "srcs", "slot", "frees", "replays", "replay_reads")

    def __init__(
        self, key: Hashable, inputs: Sequence[Ref], label: str, replay_reads: set[int] | None = None
    ) -> None:
        self.key = key
        self.inputs = inputs
        self.label = label
        self.srcs: tuple[tuple[int, int], ...] = ()
        self.slot = -1
        self.frees: tuple[int, ...] = ()
        # replays by input signature, for steps that may replay: replay_reads are the data ids (weights)
        # whose values a replayed call may read
        self.replays: dict[Any, _Replay | None] | None = None if replay_reads is None else {}
        self.replay_reads = replay_reads

    def call(self, ins: list[Tensor]) -> Tensor | Sequence[Tensor]:
        """The step's outputs for these inputs."""
        raise NotImplementedError

    def run(self, ins: list[Tensor]) -> Any:
        """call(ins), or the replay recorded for this input signature (recording one on first sight)."""
        replays = self.replays
        if replays is None:
            return self.call(ins)
        engine = ENGINE
        sig = (engine.backend_name, *[(t.shape, t.dtype) for t in ins])
        replay = replays.get(sig, _MISSING)
        if replay is None:
            return self.call(ins)
        if replay is not _MISSING:
            return replay.run(ins)  # type: ignore[union-attr]
        log: list[Any] = []
        previous = engine.record_kernels(log)
        try:
            out = self.call(ins)
        finally:
            engine.record_kernels(previous)
            if previous is not None:  # a whole run is being captured: it sees these kernels too
                previous.extend(log)
        replays[sig] = _Replay.build(ins, log, out, self.replay_reads or set())
        return out


_MISSING = object()


@dataclass
class Program:
    """Steps resolved for one set of feeds and outputs: a slot per value, constants pre-placed."""

    steps: list[Step]
    num_feeds: int
    num_slots: int
    constants: tuple[tuple[int, Tensor], ...]
    outputs: tuple[tuple[int, int], ...]
    names: list[str]
    kind: str  # what a slot's name names in errors ("Node", "Layer")
    captures: dict[Any, Capture | None] = field(default_factory=dict)  # by signature (see run(capture=True))


def compile_steps(
    steps: list[Step],
    feeds: Sequence[Hashable],
    outputs: Sequence[Ref],
    constants: Mapping[Any, Tensor],
    name_of: Callable[[Any], str],
    kind: str,
) -> Program:
    """Slots for feeds (first, in order), step outputs and the constants steps read; frees at last reads."""
    slot_of: dict[Hashable, int] = {key: i for i, key in enumerate(feeds)}
    for step in steps:
        slot_of.setdefault(step.key, len(slot_of))
    placed: list[tuple[int, Tensor]] = []

    def slot(key: Hashable) -> int:
        got = slot_of.get(key)
        if got is None:
            got = slot_of[key] = len(slot_of)
            value = constants.get(key)
            if value is not None:
                placed.append((got, value))
        return got

    last: dict[int, int] = {}
    for i, step in enumerate(steps):
        step.srcs = tuple((slot(key), idx) for key, idx in step.inputs)
        for s, _ in step.srcs:
            last[s] = i
        step.slot = slot_of[step.key]
        step.frees = ()
    outs = tuple((slot(key), idx) for key, idx in outputs)
    kept = {s for s, _ in outs}
    for s, i in last.items():
        if s not in kept:
            steps[i].frees += (s,)
    names = [""] * len(slot_of)
    for key, i in slot_of.items():
        names[i] = name_of(key)
    return Program(steps, len(feeds), len(slot_of), tuple(placed), outs, names, kind)


def run(
    program: Program,
    feeds: Sequence[Tensor],
    protected: set[int],
    capture: bool = False,
    on_step: Callable[[Any, tuple[Tensor, ...]], None] | None = None,
) -> list[Tensor]:
    """Run a program on feeds (one per feed slot); returns the outputs, everything else it made is freed.

    A tensor can stand in several slots (identity ops and layers pass their input on): it is freed when the
    last slot holding it is; feeds, constants and the ids in `protected` are never freed.
    capture: the program makes the same kernel calls for the same input signature (no training behaviour):
    its first run per signature is recorded and later runs replay it (models/capture.py).
    on_step: called with each step's key and outputs as it runs (not with capture).
    """
    if len(feeds) != program.num_feeds:
        raise ValueError(f"Expected {program.num_feeds} inputs, but got {len(feeds)}")
    if not capture or hooks_active():
        return _run(program, feeds, protected, on_step)
    feeds = list(feeds)
    sig = signature(feeds)
    got = program.captures.get(sig, _MISSING)
    if got is None:
        return _run(program, feeds, protected)
    if got is not _MISSING:
        outs = got.run(feeds)  # type: ignore[union-attr]
        if outs is not None:
            STATS["replayed"] += 1
            return outs
        STATS["dropped"] += 1
        got.drop()  # type: ignore[union-attr]
        if got.stale:  # type: ignore[union-attr]
            del program.captures[sig]  # a weight its folded values came from was assigned: capture anew
        else:
            program.captures[sig] = None
        return _run(program, feeds, protected)
    outs, log, start = recorded(lambda: _run(program, feeds, protected))
    made = program.captures[sig] = Capture.build(feeds, log, outs, start)
    STATS["captured" if made is not None else "refused"] += 1
    return outs


def release_captures(programs: Iterable[Program]) -> None:
    """Drop the compiled replays of `programs` (their wasm arenas) and the values their captures folded
    (models/capture.py)."""
    for program in programs:
        for capture in program.captures.values():
            if capture is not None:
                capture.drop()


def _run(
    program: Program, feeds: Sequence[Tensor], protected: set[int], on_step: Callable[..., None] | None = None
) -> list[Tensor]:
    protected = set(protected)
    live: list[Any] = [None] * program.num_slots
    aliases: dict[int, int] = {}
    for i, t in enumerate(feeds):
        live[i] = (t,)
        aliases[id(t)] = aliases.get(id(t), 0) + 1
        protected.add(id(t))
    for i, value in program.constants:
        live[i] = (value,)
        protected.add(id(value))
    names, kind = program.names, program.kind

    def release(slot: int) -> None:
        got = live[slot]
        live[slot] = None
        for t in got or ():
            key = id(t)
            n = aliases.get(key, 0) - 1
            aliases[key] = n
            if n <= 0 and key not in protected:
                t.dispose()

    def fetch(slot: int, idx: int) -> Tensor:
        got = live[slot]
        if got is None:
            raise ValueError(f"{kind} '{names[slot]}' has no value (missing weight or input)")
        if idx >= len(got):
            raise ValueError(f"{kind} '{names[slot]}' has {len(got)} outputs; output {idx} was requested")
        return got[idx]

    tidy = ENGINE.tidy
    step: Step | None = None
    try:
        for step in program.steps:
            try:
                ins = [live[s][i] for s, i in step.srcs]
            except (TypeError, IndexError):
                ins = [fetch(s, i) for s, i in step.srcs]
            out = tidy(partial(step.run, ins))
            outs = (out,) if isinstance(out, Tensor) else tuple(out)
            live[step.slot] = outs
            if on_step is not None:
                on_step(step.key, outs)
            for t in outs:
                aliases[id(t)] = aliases.get(id(t), 0) + 1
            for s in step.frees:
                release(s)
        step = None
        result = [fetch(s, i) for s, i in program.outputs]
    except Exception as e:
        for s in range(len(live)):
            release(s)
        # a nested model's step has said where already
        if step is None or any(n.startswith(f"Error in {kind.lower()} ") for n in getattr(e, "__notes__", ())):
            raise
        e.add_note(f"Error in {step.label}")
        raise
    protected.update(id(t) for t in result)
    for s in range(len(live)):
        release(s)
    return result


class _Replay:
    """The kernels one step ran for one input signature, to run again without the op layer.

    Recorded on a step's first run with given input shapes and dtypes (and backend): the op validated its
    arguments then, and a graph node's attrs and weights do not change, so the same kernels with the same
    attrs follow. Only calls whose kernels read nothing but step inputs and earlier kernels' outputs, and
    that read no tensor data except the step's replay_reads, are replayed; the rest always run through the
    op. run() makes the kernels inside the step's tidy scope, which frees the intermediates.
    """

    __slots__ = ("kernels", "result", "single")

    def __init__(self, kernels: list[tuple[str, Any, Any]], result: Any, single: bool) -> None:
        self.kernels = kernels
        self.result = result
        self.single = single

    @staticmethod
    def build(ins: list[Tensor], log: list[Any], out: Any, reads: set[int]) -> _Replay | None:
        """A replay of what `log` (ENGINE.record_kernels) holds, or None when it cannot be replayed."""
        index = {id(t): i for i, t in reversed(list(enumerate(ins)))}
        kernels = []
        pos = len(ins)
        for entry in log:
            if entry[0] == "read":
                if entry[1] not in reads:
                    return None
                continue
            if len(entry) != 4:  # a tensor made from host values, or an event: inputs it makes are refused
                continue
            name, inputs, attrs, outs = entry
            if any(isinstance(v, Tensor) for v in attrs.values()):
                return None
            try:
                if isinstance(inputs, dict):
                    refs: Any = {k: ref_of(v, index) for k, v in inputs.items()}
                else:
                    refs = [ref_of(v, index) for v in inputs]
            except KeyError:
                return None
            for t in (outs,) if isinstance(outs, Tensor) else outs:
                index[id(t)] = pos
                pos += 1
            kernels.append((name, refs, attrs))
        single = isinstance(out, Tensor)
        result = [index.get(id(t)) for t in ((out,) if single else out)]
        if None in result:
            return None
        return _Replay(kernels, result, single)

    def run(self, ins: list[Tensor]) -> Any:
        """Run the recorded kernels on new inputs of the same signature."""
        run_kernel = ENGINE.run_kernel
        pool: list[Any] = list(ins)
        for name, refs, attrs in self.kernels:
            if type(refs) is dict:
                inputs: Any = {k: take(pool, r) for k, r in refs.items()}
            else:
                inputs = [take(pool, r) for r in refs]
            out = run_kernel(name, inputs, attrs)
            if isinstance(out, Tensor):
                pool.append(out)
            else:
                pool.extend(out)
        return pool[self.result[0]] if self.single else [pool[i] for i in self.result]
