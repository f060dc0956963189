"""Capture and replay of whole model runs (models/capture.py) on the host: replayed outputs against numpy, the
free plan against poisoned buffers, invalidation, and the runs that must not be captured."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import webtf as tf
from tests.harness.aio import run_sync
from webtf import kernel_names as kn
from webtf.engine import ENGINE
from webtf.models.capture import STATS
from webtf.models.runner import Step, compile_steps, run


class Fn(Step):
    """A step that calls fn(*inputs)."""

    __slots__ = ("fn",)

    def __init__(self, key: str, inputs: list[tuple[str, int]], fn: Any) -> None:
        super().__init__(key, inputs, f"node '{key}' (op Test)")
        self.fn = fn

    def call(self, ins: list[tf.Tensor]) -> Any:
        return self.fn(*ins)


@pytest.fixture(params=["cpu", "numpy"])
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    previous = tf.get_backend()
    assert run_sync(tf.set_backend(request.param))
    yield request.param
    run_sync(tf.set_backend(previous))


def _program(w: tf.Tensor) -> Any:
    """x -> a = x * w + 1 (a number made in the run), same = a (one buffer, two slots), s = split(same) (two
    outputs), out0 = s0 - x, out1 = reshape(s1) (shares s1's buffer); b, an unused branch."""
    steps = [
        Fn("a", [("x", 0), ("w", 0)], lambda x, w: tf.add(tf.mul(x, w), 1)),
        Fn("same", [("a", 0)], lambda t: t),
        Fn("unused", [("x", 0)], lambda t: tf.exp(t)),
        Fn("s", [("same", 0)], lambda t: tf.split(t, 2, 1)),
        Fn("out0", [("s", 0), ("x", 0)], lambda s0, x: tf.sub(s0, tf.slice(x, [0, 0], [-1, 2]))),
        Fn("out1", [("s", 1)], lambda s1: tf.reshape(s1, [-1])),
    ]
    return compile_steps(steps, ["x"], [("out0", 0), ("out1", 0)], {"w": w}, str, "Node")


def _expected(xv: np.ndarray, wv: np.ndarray) -> list[np.ndarray]:
    a = xv * wv + 1
    return [a[:, :2] - xv[:, :2], a[:, 2:].reshape(-1)]


def _check(program: Any, xv: np.ndarray, wv: np.ndarray) -> None:
    x = tf.tensor(xv.astype(np.float32))
    outs = run(program, [x], set(), capture=True)
    for got, want in zip(outs, _expected(xv, wv), strict=True):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
        assert got.shape == want.shape
    tf.dispose(outs)
    x.dispose()


def test_replay_matches_numpy_and_frees_everything(backend: str):
    wv = np.array([[1.0, 2.0, 3.0, 4.0]], np.float32)
    w = tf.tensor(wv)
    program = _program(w)
    before, stats = tf.memory().num_tensors, dict(STATS)
    rng = np.random.default_rng(0)
    for _ in range(3):
        _check(program, rng.uniform(-1, 1, (3, 4)), wv)
        assert tf.memory().num_tensors == before
    assert STATS["captured"] - stats["captured"] == 1 and STATS["replayed"] - stats["replayed"] == 2
    assert ENGINE.memory().num_bytes == w.size * 4
    w.dispose()


def test_free_plan_never_frees_a_live_buffer(backend: str, monkeypatch: pytest.MonkeyPatch):
    """Every freed buffer is overwritten with NaN first: a buffer freed while a later kernel still reads it
    would show up as NaN in the outputs."""
    b = ENGINE.backend
    free = b.dispose_data

    def poison(data_id: int) -> None:
        values = b.data.get(data_id)
        if values is not None:
            if hasattr(values, "fill"):  # a numpy array
                if values.dtype.kind == "f":
                    values.fill(np.nan)
            elif values.typecode == "f":
                values[:] = type(values)("f", [float("nan")] * len(values))
        free(data_id)

    monkeypatch.setattr(b, "dispose_data", poison)
    wv = np.array([[0.5, -1.0, 2.0, 3.0]], np.float32)
    w = tf.tensor(wv)
    program = _program(w)
    for seed in range(3):
        _check(program, np.random.default_rng(seed).uniform(-1, 1, (2, 4)), wv)
    assert program.captures and all(c is not None for c in program.captures.values())
    w.dispose()


def test_new_signature_flags_or_backend_capture_anew(backend: str):
    wv = np.ones((1, 4), np.float32)
    w = tf.tensor(wv)
    program = _program(w)
    stats = dict(STATS)
    _check(program, np.ones((2, 4)), wv)
    _check(program, np.ones((2, 4)), wv)  # replayed
    _check(program, np.ones((5, 4)), wv)  # another batch size: a new capture
    tf.env().set("KEEP_INTERMEDIATE_TENSORS", False)  # any flag set: a new capture
    _check(program, np.ones((2, 4)), wv)
    other = "numpy" if backend == "cpu" else "cpu"
    run_sync(tf.set_backend(other))
    _check(program, np.ones((2, 4)), wv)  # another backend
    run_sync(tf.set_backend(backend))
    assert STATS["captured"] - stats["captured"] == 4 and STATS["replayed"] - stats["replayed"] == 1
    assert len(program.captures) == 4
    w.dispose()


def test_a_disposed_weight_stops_the_replay(backend: str):
    wv = np.full((1, 4), 2.0, np.float32)
    w = tf.tensor(wv)
    program = _program(w)
    _check(program, np.ones((2, 4)), wv)
    w.dispose()
    x = tf.tensor(np.ones((2, 4), np.float32))
    before = tf.memory().num_tensors
    with pytest.raises(ValueError, match="disposed"):
        run(program, [x], set(), capture=True)
    assert tf.memory().num_tensors == before
    x.dispose()


def test_data_dependent_and_random_runs_are_not_captured(backend: str):
    stats = dict(STATS)
    for fn in (
        lambda t: tf.mul(t, float(tf.max(t).data_sync()[0])),  # reads its input's values
        lambda t: tf.add(t, tf.random_uniform(list(t.shape))),  # random values
    ):
        program = compile_steps([Fn("y", [("x", 0)], fn)], ["x"], [("y", 0)], {}, str, "Node")
        for scale in (1.0, 2.0):
            x = tf.tensor(np.full((2, 2), scale, np.float32))
            (y,) = run(program, [x], set(), capture=True)
            if fn.__code__.co_names.count("max"):
                np.testing.assert_allclose(y.numpy(), np.full((2, 2), scale * scale))
            else:
                assert ((y.numpy() >= scale) & (y.numpy() < scale + 1)).all()
            tf.dispose([x, y])
        assert list(program.captures.values()) == [None]
    assert STATS["refused"] - stats["refused"] == 2 and STATS["replayed"] == stats["replayed"]


def test_arena_plan_never_overlaps_live_blocks():
    """backends/wasm/replay.plan: blocks whose live ranges overlap never share bytes; others may."""
    from webtf.backends.wasm.replay import plan

    rng = np.random.default_rng(0)
    for _ in range(20):
        blocks = {}
        for i in range(60):
            start = int(rng.integers(-1, 100))
            end = None if rng.random() < 0.1 else start + int(rng.integers(0, 30))
            blocks[i] = [0, int(rng.integers(0, 5000)), 0, start, end]
        offsets, size = plan(blocks, 130)
        spans = {i: (b[3], 131 if b[4] is None else max(b[4], b[3] + 1)) for i, b in blocks.items()}
        for i, a in blocks.items():
            assert offsets[i] % 64 == 0 and offsets[i] + a[1] <= size
            for j, b in blocks.items():
                if i < j and spans[i][0] < spans[j][1] and spans[j][0] < spans[i][1]:
                    assert offsets[i] + a[1] <= offsets[j] or offsets[j] + b[1] <= offsets[i], (i, j)
        assert size < sum(b[1] + 64 for b in blocks.values())  # bytes are shared


def _random_program(rng: np.random.Generator) -> tuple[list[tuple], dict[int, list], dict[int, np.ndarray]]:
    """A recorded run in backends/wasm/replay's form: element-wise calls (Relu, Add) and a non-element-wise one
    (Reverse, which the simulation below writes element by element, so an input sharing its output's bytes
    would read values already overwritten), over blocks of 4 or 8 float64s; 3 feeds live to the end."""
    values = {i: rng.standard_normal(4 * (1 + i % 2)) for i in range(3)}
    blocks = {i: [0, v.nbytes, v.size, -1, None] for i, v in values.items()}
    cmds: list[tuple] = []
    users: dict[int, int] = {}
    for _ in range(40):
        name = ("Relu", "Add", "Reverse")[int(rng.integers(3))]
        x = int(rng.choice(list(values)))
        ins = [x]
        if name == "Add":
            same = [i for i in values if values[i].size == values[x].size]
            ins.append(int(rng.choice(same)))
        out = len(blocks)
        values[out] = np.zeros(values[x].size)
        blocks[out] = [0, values[x].nbytes, values[x].size, len(cmds), None]
        cmds.append(("call", None, [], [], name, ins, [out]))
        for i in ins:
            users[i] = len(cmds)
    for i, b in blocks.items():  # freed after their last reader, or later; feeds and some values never
        if b[3] >= 0 and rng.random() < 0.8:
            b[4] = max(users.get(i, b[3] + 1), b[3] + 1) + int(rng.integers(0, 2))
    return cmds, blocks, values


def _simulate(
    cmds: list[tuple], blocks: dict[int, list], offsets: dict[int, int], size: int, feeds: dict[int, np.ndarray]
) -> dict[int, Any]:
    """Runs `cmds` on one float64 arena at `offsets` from `feeds`; before each call every byte that holds no
    value still to be read is overwritten with NaN. Returns each never-freed value."""
    arena = np.full(size // 8 + 1, np.nan)
    first: dict[int, int] = {i: -1 for i, b in blocks.items() if b[3] < 0}
    last: dict[int, int] = {}
    for k, cmd in enumerate(cmds):
        for i in (*cmd[5], *cmd[6]):
            first.setdefault(i, k)
            last[i] = k
    place = {i: slice(offsets[i] // 8, offsets[i] // 8 + b[2]) for i, b in blocks.items()}
    for i, v in feeds.items():
        arena[place[i]] = v
    for k, (_, _, _, _, name, ins, (out,)) in enumerate(cmds):
        keep = np.zeros(arena.size, bool)
        for i in blocks:
            if first[i] < k and (last.get(i, k) >= k or blocks[i][4] is None):
                keep[place[i]] = True
        arena[~keep] = np.nan
        a = arena[place[ins[0]]]
        if name == "Relu":
            arena[place[out]] = np.maximum(a, 0)
        elif name == "Add":
            arena[place[out]] = a + arena[place[ins[1]]]
        else:
            o = place[out].start
            for j in range(a.size):
                arena[o + j] = arena[place[ins[0]].start + a.size - 1 - j]
    return {i: arena[place[i]].copy() for i, b in blocks.items() if b[4] is None}


def test_in_place_outputs_never_take_a_live_block():
    """replay.layout: an element-wise output takes the bytes of an input that dies at its call; the program
    run on the planned arena, with every byte no live value holds poisoned before each call, equals numpy."""
    from webtf.backends.wasm.replay import layout

    rng = np.random.default_rng(1)
    shared = 0
    for _ in range(30):
        cmds, blocks, values = _random_program(rng)
        offsets, size, alias = layout(cmds, blocks)
        shared += len(alias)
        for out, root in alias.items():
            assert offsets[out] == offsets[root] and root not in alias
            assert next(c for c in cmds if out in c[6])[4] in ("Relu", "Add")
        feeds = {i: values[i] for i, b in blocks.items() if b[3] < 0}
        want = dict(feeds)
        for _, _, _, _, name, ins, (out,) in cmds:
            a = want[ins[0]]
            want[out] = np.maximum(a, 0) if name == "Relu" else a + want[ins[1]] if name == "Add" else a[::-1]
        for i, v in _simulate(cmds, blocks, offsets, size, feeds).items():
            np.testing.assert_array_equal(v, want[i])
    assert shared > 30  # the plans did put outputs in place


def test_in_place_refusals():
    """No output in place of an input read later, written before its call, of another size, live to the end
    (a feed or an output), Prelu's alpha, or through a non-element-wise export; chains share their first
    block."""
    from webtf.backends.wasm.replay import in_place

    def case(name: str, uses_x_later: bool = False, out_bytes: int = 16, x_end: int | None = 2,
             written_first: bool = False) -> dict[int, int]:
        blocks = {1: [0, 16, 4, 0, x_end], 2: [0, out_bytes, 4, 0, None]}
        cmds: list[tuple] = [("call", None, [], [], "Exp", [], [1])]
        if written_first:
            cmds.append(("write", 2, 0, b"\0" * 4))
        cmds.append(("call", None, [], [], name, [1], [2]))
        if uses_x_later:
            cmds.append(("call", None, [("block", 1, 0)], [], "_copy", (), ()))
        if x_end is not None:
            blocks[1][4] = len(cmds)
        return in_place(cmds, blocks)

    assert case("Relu") == {2: 1}
    assert case("Relu", uses_x_later=True) == {}
    assert case("Relu", written_first=True) == {}
    assert case("Relu", out_bytes=32) == {}
    assert case("Relu", x_end=None) == {}
    assert case("Transpose") == {}
    blocks = {1: [0, 16, 4, 0, 2], 2: [0, 16, 4, 1, None]}  # Prelu's output takes x's bytes, never alpha's
    made = ("call", None, [], [], "Exp", [], [1])
    assert in_place([made, ("call", None, [], [], "Prelu", [1, 7], [2])], blocks) == {2: 1}
    assert in_place([made, ("call", None, [], [], "Prelu", [7, 1], [2])], blocks) == {}
    chain = [("call", None, [], [], "Relu", [i], [i + 1]) for i in range(3)]
    blocks = {i: [0, 16, 4, i, i + 2] for i in range(4)}
    assert in_place(chain, blocks) == {1: 0, 2: 0, 3: 0}


def _conv_np(x: np.ndarray, f: np.ndarray, depthwise: bool) -> np.ndarray:
    """A 'valid' stride-1 NHWC convolution (or depthwise, multiplier 1) in numpy."""
    kh, kw = f.shape[:2]
    h, w = x.shape[1] - kh + 1, x.shape[2] - kw + 1
    patches = np.stack([x[:, i : i + kh, j : j + kw, :] for i in range(h) for j in range(w)], 1)
    if depthwise:
        out = np.einsum("bpijc,ijc->bpc", patches, f[..., 0])
    else:
        out = np.einsum("bpijc,ijco->bpo", patches, f)
    return out.reshape(x.shape[0], h, w, -1)


def _fusion_program(ws: dict[str, tf.Tensor], second_reader: bool) -> Any:
    """conv + bias -> relu, depthwise + bias, (x2 @ m) + bias; with second_reader the conv's output is also
    an output, and the depthwise's add takes a [1, 1, 1, c] bias (not 1-D): neither fuses."""
    dw_bias = "dwb4" if second_reader else "dwb"
    steps = [
        Fn("c", [("x", 0), ("f", 0)], lambda x, f: tf.conv2d(x, f, 1, "valid")),
        Fn("cb", [("c", 0), ("b", 0)], lambda c, b: tf.relu(tf.add(c, b))),
        Fn("d", [("x", 0), ("df", 0)], lambda x, f: tf.depthwise_conv2d(x, f, 1, "valid")),
        Fn("db", [(dw_bias, 0), ("d", 0)], lambda b, d: tf.add(b, d)),
        Fn("m", [("x2", 0), ("mm", 0)], lambda a, m: tf.mat_mul(a, m)),
        Fn("mb", [("m", 0), ("mbias", 0)], lambda m, b: tf.add(m, b)),
    ]
    outs = [("cb", 0), ("db", 0), ("mb", 0)] + ([("c", 0)] if second_reader else [])
    return compile_steps(steps, ["x", "x2"], outs, ws, str, "Node")


@pytest.mark.parametrize("second_reader", [False, True])
def test_bias_adds_fuse_into_convs_and_matmuls(backend: str, second_reader: bool):
    """Replays of a conv / depthwise / matmul + bias graph equal numpy; the capture holds the fused kernels,
    except where the conv's output has a second reader or the bias is not a 1-D weight."""
    rng = np.random.default_rng(3)
    wv = {
        "f": rng.uniform(-1, 1, (3, 3, 2, 3)), "b": rng.uniform(-1, 1, 3), "df": rng.uniform(-1, 1, (3, 3, 2, 1)),
        "dwb": rng.uniform(-1, 1, 2), "mm": rng.uniform(-1, 1, (4, 5)), "mbias": rng.uniform(-1, 1, 5),
    }  # fmt: skip
    wv = {k: v.astype(np.float32) for k, v in wv.items()}
    wv["dwb4"] = wv["dwb"].reshape(1, 1, 1, 2)
    ws = {k: tf.tensor(v) for k, v in wv.items()}
    program = _fusion_program(ws, second_reader)
    before = tf.memory().num_tensors
    for _ in range(3):
        xv, x2v = rng.uniform(-1, 1, (1, 5, 5, 2)), rng.uniform(-1, 1, (3, 4))
        x, x2 = tf.tensor(xv.astype(np.float32)), tf.tensor(x2v.astype(np.float32))
        outs = run(program, [x, x2], set(), capture=True)
        conv = _conv_np(xv, wv["f"], False)
        want = [
            np.maximum(conv + wv["b"], 0),
            _conv_np(xv, wv["df"], True) + wv["dwb"],
            x2v @ wv["mm"] + wv["mbias"],
        ]
        for got, expected in zip(outs, want + ([conv] if second_reader else []), strict=True):
            np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5, atol=1e-5)
        tf.dispose([*outs, x, x2])
        assert tf.memory().num_tensors == before
    (capture,) = program.captures.values()
    kernels = ENGINE._kernels
    impls = [step[0] for step in capture.kernels]
    fused = [kernels[n] in impls for n in (kn.FusedConv2D, kn.FusedDepthwiseConv2D, kn._FusedMatMul)]
    assert fused == ([False, False, True] if second_reader else [True, True, True])
    assert sum(impl is kernels[kn.Add] for impl in impls) == (2 if second_reader else 0)
    tf.dispose(list(ws.values()))


@pytest.mark.parametrize("case", ["hard_swish", "second_reader", "inf_weight", "other_factor"])
def test_nan_checks_dropped_only_for_the_hard_swish_pattern(backend: str, case: str):
    """unneeded_nan_checks finds relu6 in x * relu6(x + k) * k2 (a NaN in x + k is one in x, so in the
    product), and nothing when relu6's output has a second reader, k is not finite or the factor is not x."""
    from webtf.models.capture import unneeded_nan_checks

    def relu6(backend: Any, inputs: Any, attrs: dict) -> Any:
        raise AssertionError("not called")

    relu6.unguarded = relu6  # type: ignore[attr-defined]
    x = tf.tensor(np.linspace(-8, 8, 12, dtype=np.float32).reshape(3, 4))
    k = tf.scalar(np.inf if case == "inf_weight" else 3.0)
    k2, y = tf.scalar(1 / 6), tf.ones([3, 4])
    log: list[Any] = []
    start = ENGINE.next_tensor_id()
    ENGINE.record_kernels(log)
    try:
        r = tf.relu6(tf.add(x, k))
        out = tf.mul(tf.mul(y if case == "other_factor" else x, k2), r)
        made = [r, out] if case == "second_reader" else [out]
    finally:
        ENGINE.record_kernels(None)
    found = unneeded_nan_checks(log, made, start, {kn.Relu6: relu6})
    assert found == ({id(r)} if case == "hard_swish" else set())
    factor = y.numpy() if case == "other_factor" else x.numpy()
    np.testing.assert_allclose(out.numpy(), factor / 6 * np.clip(x.numpy() + k.numpy(), 0, 6), rtol=1e-6)
    tf.dispose([x, k, k2, y, r, out])


def _bn_program(ws: dict[str, tf.Tensor]) -> Any:
    """A batch norm's affine computed from weights in the run (as layers' fused conv + batch norm does):
    inv = rsqrt(var + 0.001) * gamma, off = beta - mean * inv; outputs conv(x, f * inv) + off and x * inv + off,
    plus `w2`, weights only, returned as an output (not folded)."""

    def bn(x: tf.Tensor, f: tf.Tensor, g: tf.Tensor, v: tf.Tensor, m: tf.Tensor, b: tf.Tensor) -> Any:
        inv = tf.mul(tf.rsqrt(tf.add(v, 0.001)), g)
        off = tf.add(tf.mul(m, tf.neg(inv)), b)
        return [tf.add(tf.conv2d(x, tf.mul(f, inv), 1, "valid"), off), tf.add(tf.mul(x, inv), off)]

    names = ["f", "g", "v", "m", "b"]
    steps = [
        Fn("bn", [("x", 0)] + [(n, 0) for n in names], bn),
        Fn("w2", [("g", 0)], lambda g: tf.mul(g, 2)),
    ]
    return compile_steps(steps, ["x"], [("bn", 0), ("bn", 1), ("w2", 0)], ws, str, "Node")


def test_kernels_of_weights_alone_fold_once_per_capture(backend: str):
    """fold_constants: replays equal numpy with the batch norm's weight-only kernels gone from the capture,
    the folded values are no tensors (tf.memory() unchanged) and are freed with the capture; assigning a
    variable they come from captures anew with the new values; a disposed one stops the replay."""
    from webtf.models.runner import release_captures

    rng = np.random.default_rng(5)
    wv = {
        "f": rng.uniform(-1, 1, (2, 2, 3, 3)), "g": rng.uniform(0.5, 2, 3), "v": rng.uniform(0, 2, 3),
        "m": rng.uniform(-1, 1, 3), "b": rng.uniform(-1, 1, 3),
    }  # fmt: skip
    wv = {k: v.astype(np.float32) for k, v in wv.items()}
    ws = {k: tf.tensor(v) for k, v in wv.items()}
    g0 = ws.pop("g")
    ws["g"] = tf.variable(g0, trainable=False)
    g0.dispose()
    program = _bn_program(ws)
    data = ENGINE.backend.data
    before, held = tf.memory().num_tensors, len(data)
    stats = dict(STATS)

    def check(g: np.ndarray) -> None:
        xv = rng.uniform(-1, 1, (1, 4, 4, 3)).astype(np.float32)
        x = tf.tensor(xv)
        outs = run(program, [x], set(), capture=True)
        inv = g / np.sqrt(wv["v"] + 0.001)
        off = wv["b"] - wv["m"] * inv
        want = [_conv_np(xv, wv["f"] * inv, False) + off, xv * inv + off, g * 2]
        for got, expected in zip(outs, want, strict=True):
            np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5, atol=1e-5)
        tf.dispose([*outs, x])
        assert tf.memory().num_tensors == before

    for _ in range(3):
        check(wv["g"])
    (capture,) = program.captures.values()
    kernels = ENGINE._kernels
    impls = [step[0] for step in capture.kernels]
    # left: the conv with the folded offset as its bias (fuse_bias_adds), x * inv + off, and g * 2 (an
    # output: not folded) with its number; Rsqrt, Neg and the filter's Multiply ran once, at the capture
    want = [kernels[kn.FusedConv2D], kernels[kn.Multiply], kernels[kn.Add], None, kernels[kn.Multiply]]
    assert impls == want
    assert len(data) > held  # the folded values (inv, off, f * inv) are the capture's
    assert STATS["replayed"] - stats["replayed"] == 2
    g2 = rng.uniform(0.5, 2, 3).astype(np.float32)
    g_new = tf.tensor(g2)
    ws["g"].assign(g_new)
    g_new.dispose()
    check(g2)  # the normal way (the capture's source changed), then captured anew
    check(g2)
    assert STATS["captured"] - stats["captured"] == 2 and STATS["dropped"] - stats["dropped"] == 1
    release_captures([program])
    assert len(data) == held  # g2 shares the variable's place (its old buffer freed)
    ws["m"].dispose()
    x = tf.tensor(np.ones((1, 4, 4, 3), np.float32))
    with pytest.raises(ValueError, match="disposed"):
        run(program, [x], set(), capture=True)
    tf.dispose([x, *ws.values()])


@pytest.mark.parametrize("case", ["fold", "nonzero_value", "second_reader"])
def test_zero_pads_fold_into_the_next_convolution(backend: str, case: str):
    """fold_pads: pad(x) -> conv2d 'valid' and pad(x) -> depthwise 'same' replay as the convolutions with
    explicit padding (no PadV2 left), equal to numpy; a pad with another value or a second reader stays."""
    rng = np.random.default_rng(7)
    fv, dv = (
        rng.uniform(-1, 1, (3, 3, 2, 4)).astype(np.float32),
        rng.uniform(-1, 1, (3, 3, 2, 1)).astype(np.float32),
    )
    ws = {"f": tf.tensor(fv), "df": tf.tensor(dv)}
    value = 1.0 if case == "nonzero_value" else 0.0
    pads = [[0, 0], [0, 1], [2, 1], [0, 0]]
    steps = [
        Fn("p", [("x", 0)], lambda x: tf.pad(x, pads, value)),
        Fn("c", [("p", 0), ("f", 0)], lambda p, f: tf.conv2d(p, f, 2, "valid")),
        Fn("q", [("x", 0)], lambda x: tf.pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]])),
        Fn("d", [("q", 0), ("df", 0)], lambda q, f: tf.depthwise_conv2d(q, f, 1, "same")),
    ]
    outs = [("c", 0), ("d", 0)] + ([("p", 0)] if case == "second_reader" else [])
    program = compile_steps(steps, ["x"], outs, ws, str, "Node")
    before = tf.memory().num_tensors
    for _ in range(3):
        xv = rng.uniform(-1, 1, (1, 6, 5, 2)).astype(np.float32)
        x = tf.tensor(xv)
        got = run(program, [x], set(), capture=True)
        padded = np.pad(xv, pads, constant_values=value)
        want = [
            _conv_np(padded, fv, False)[:, ::2, ::2],
            _conv_np(np.pad(xv, [[0, 0], [2, 2], [2, 2], [0, 0]]), dv, True),
        ] + ([padded] if case == "second_reader" else [])
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g.numpy(), w, rtol=1e-5, atol=1e-5)
        tf.dispose([*got, x])
        assert tf.memory().num_tensors == before
    (capture,) = program.captures.values()
    impls = [step[0] for step in capture.kernels]
    assert impls.count(ENGINE._kernels[kn.PadV2]) == (0 if case == "fold" else 1)
    tf.dispose(list(ws.values()))


def test_weights_grown_past_the_limit_are_not_folded(backend: str):
    """A weight tiled to 90,000 elements is left in the program (folding would hold it for the capture's
    life); a tile to 100 elements is folded."""
    w = tf.tensor(np.array([[0.5]], np.float32))
    for reps, folded in ((300, False), (10, True)):
        steps = [Fn("y", [("x", 0), ("w", 0)], lambda x, w, r=reps: tf.add(x, tf.tile(w, [r, r])))]
        program = compile_steps(steps, ["x"], [("y", 0)], {"w": w}, str, "Node")
        for _ in range(2):
            x = tf.tensor(np.ones((reps, reps), np.float32))
            (y,) = run(program, [x], set(), capture=True)
            np.testing.assert_array_equal(y.numpy(), np.full((reps, reps), 1.5, np.float32))
            tf.dispose([x, y])
        (capture,) = program.captures.values()
        impls = [step[0] for step in capture.kernels]
        assert (ENGINE._kernels[kn.Tile] in impls) is not folded
    w.dispose()
