"""The compiled replay on wasm (backends/wasm/replay.py) in the page, against TF.js 4.22.0 (cpu) as the
oracle: outputs stay right with the whole arena poisoned between runs, a NaN input runs the Python way, a
trip through cpu (the weights move away and back) and a weight at a new address keep it right, a flags change
compiles anew, a disposed model frees its arenas, and compiled runs leave tf.memory() as they found it; with
the capture's fusions, a half-NaN input runs compiled without selfie's NaN checks and matches the eager run."""

from tests.models.test_parity import ORACLE_JS

CHECKS_PY = """
import js, math, gc
from array import array
from webtf.models import capture
from webtf.models.capture import STATS
from webtf.models.graph.executor import Plan
assert await tf.set_backend("wasm")
capture.FUSE = False  # keep selfie's NaN checks (its hard-swish Relu6s: see the end) and its bias adds
backend = tf.backend()
before = tf.memory().num_tensors
model = await tf.load_graph_model("models/selfie.json")
inp = js.webtfParityInput
x = tf.tensor(array("f", inp.data.to_py()), list(inp.shape.to_py()), str(inp.dtype))
ref = js.webtfParityOracle[0].to_py().tolist()
scale = max(1.0, max(abs(v) for v in ref))

async def error():
    out = await model.execute_async(x)
    got = (await out.data()).tolist()
    out.dispose()
    return max(abs(a - b) for a, b in zip(got, ref, strict=True)) / scale

def compiled_programs():
    return [c.compiled for p in model.executor._plans.values() for prog in p.compiled.values()
            for c in prog.captures.values() if c is not None and c.compiled]

res = {}
stats = dict(STATS)
res["errors"] = [await error() for _ in range(3)]  # captured, compiled, compiled
res["compiled_runs"] = STATS["compiled"] - stats["compiled"]
(program,) = compiled_programs()
res["arena_bytes"] = program.size
res["in_place"] = len(program.in_place)  # outputs planned into a dying input's bytes (element-wise kernels)
tensors, wasm_bytes = tf.memory().num_tensors, backend.memory()["num_bytes_in_wasm_tensors"]
out = await model.execute_async(x)
out.dispose()
res["memory_unchanged"] = [tf.memory().num_tensors == tensors,
                           backend.memory()["num_bytes_in_wasm_tensors"] == wasm_bytes]
# poison every byte of the arena (constants, feed copies, intermediates, outputs) between runs: NaN floats
poisoned = []
for _ in range(2):
    backend.module.u8.subarray(program.arena, program.arena + program.size).fill(255)
    poisoned.append(await error())
res["poisoned_errors"] = poisoned
# a NaN in the input: the kernels' NaN checks send the run the Python way (NaN-correct fallbacks), like eager
nan_x = tf.fill(x.shape, float("nan"))
compiled_before, guarded_before = STATS["compiled"], program.guarded
out = await model.execute_async(nan_x)
res["nan_run"] = [program.guarded - guarded_before, STATS["compiled"] - compiled_before,
                  all(math.isnan(v) for v in (await out.data()).tolist())]
out.dispose(); nan_x.dispose()
res["after_nan"] = await error()
# a round trip through cpu: the wasm program is still the one that runs on wasm, nothing leaks
assert await tf.set_backend("cpu")
out = await model.execute_async(x)
out.dispose()
assert await tf.set_backend("wasm")
compiled_before = STATS["compiled"]
# the weights come back from cpu (at new addresses or not): a program runs again, planned anew if need be
res["after_switch"] = [max(await error(), await error()), STATS["compiled"] - compiled_before,
                       len(compiled_programs())]
# a flags change: captured and compiled anew; the old program stays valid for the old flags only
stats = dict(STATS)
tf.env().set("KEEP_INTERMEDIATE_TENSORS", False)
res["after_flags"] = [await error() for _ in range(2)]
res["flags_stats"] = [STATS[k] - stats[k] for k in ("captured", "compiled")]
# a disposed weight: the programs are dropped and their arenas freed
programs = compiled_programs()
finalizers = [p._finalizer for p in programs]
model.dispose()
try:
    await model.execute_async(x)
    res["after_dispose"] = "ran"
except Exception as e:
    res["after_dispose"] = type(e).__name__
res["released"] = [not f.alive for f in finalizers]
capture.FUSE = True
# fused and unguarded: a NaN in half the input runs compiled, NaN where the eager run (NaN-exact) has NaN
model = await tf.load_graph_model("models/selfie.json")
stats = dict(STATS)
await error(); await error()
values = x.data_sync()
half = tf.tensor(array("f", [math.nan if i % 2 else v for i, v in enumerate(values)]), x.shape)
out = await model.execute_async(half)
got = (await out.data()).tolist()
out.dispose()
capture.ENABLED = False
try:
    out = await model.execute_async(half)
finally:
    capture.ENABLED = True
want = (await out.data()).tolist()
out.dispose(); half.dispose(); model.dispose()
res["unguarded"] = [STATS["compiled"] - stats["compiled"],
                    [math.isnan(v) for v in got] == [math.isnan(v) for v in want], any(map(math.isnan, want)),
                    max((abs(a - b) for a, b in zip(got, want) if not math.isnan(b)), default=0.0)]
x.dispose()
res["leak"] = tf.memory().num_tensors - before
res
"""


def test_compiled_replay_poison_invalidation_memory(webtf_page, py):
    webtf_page.evaluate(ORACLE_JS, "selfie")
    res = py(CHECKS_PY)
    assert max(res["errors"]) <= 1e-3, res["errors"]
    assert res["compiled_runs"] == 2
    assert res["arena_bytes"] > 0
    assert res["in_place"] > 0, res["in_place"]
    assert res["memory_unchanged"] == [True, True]
    assert max(res["poisoned_errors"]) <= 1e-3, res["poisoned_errors"]
    assert res["nan_run"][:2] == [1, 0], res["nan_run"]
    assert res["after_nan"] <= 1e-3
    assert res["after_switch"][1] >= 1 and res["after_switch"][2] == 1, res["after_switch"]
    assert res["after_switch"][0] <= 1e-3, res["after_switch"]
    assert max(res["after_flags"]) <= 1e-3, res["after_flags"]
    assert res["flags_stats"] == [1, 1]
    assert res["after_dispose"] != "ran"
    assert res["unguarded"][:3] == [2, True, True] and res["unguarded"][3] <= 1e-3, res["unguarded"]
    assert res["released"] and all(res["released"]), res["released"]
    assert res["leak"] == 0


GUARDS_PY = """
from webtf.models.capture import STATS
from webtf.models.runner import Step, compile_steps, run
assert await tf.set_backend("wasm")
backend = tf.backend()

class Fn(Step):
    __slots__ = ("fn",)
    def __init__(self, key, inputs, fn):
        super().__init__(key, inputs, f"node '{key}' (op Test)")
        self.fn = fn
    def call(self, ins):
        return self.fn(*ins)

w = tf.tensor([float(v) for v in range(12)], [3, 4])
# idx = x // d (int32 FloorDiv), y = w[idx[:, 0], idx[:, 1]] (GatherNd): both check their values natively
steps = [Fn("i", [("x", 0), ("d", 0)], tf.floor_div), Fn("y", [("w", 0), ("i", 0)], tf.gather_nd)]
program = compile_steps(steps, ["x", "d"], [("y", 0), ("i", 0)], {"w": w}, str, "Node")
before = tf.memory().num_tensors
stats = dict(STATS)

def go(xs, ds):
    x, d = tf.tensor(xs, [len(xs) // 2, 2], "int32"), tf.tensor(ds, [2], "int32")
    try:
        y, i = run(program, [x, d], set(), capture=True)
        got = [y.data_sync().tolist(), i.data_sync().tolist()]
        tf.dispose([y, i])
        return got
    except ValueError as e:
        return str(e)
    finally:
        tf.dispose([x, d])

res = {"runs": [go([4, 6, 2, 3, 5, 0], [2, 2]) for _ in range(3)]}  # captured, then compiled twice
(cap,) = program.captures.values()
res["steps"] = len(cap.compiled.steps)
res["compiled"] = STATS["compiled"] - stats["compiled"]
guarded = cap.compiled.guarded
res["out_of_range"] = go([4, 6, 8, 3, 5, 0], [2, 2])  # 8 // 2 = 4 is no row of w: the guard, then the error
res["by_zero"] = go([4, 6, 2, 3, 5, 0], [2, 0])  # the cpu kernel's x // 0 = 0
res["large"] = go([2**24 + 4, 6, 2, 3, 5, 0], [2**23, 2])  # past the float32-exact limit: the cpu kernel
res["guarded"] = cap.compiled.guarded - guarded
res["again"] = go([4, 6, 2, 3, 5, 0], [2, 2])
res["compiled_after"] = STATS["compiled"] - stats["compiled"]
# a folded value (w * 2, computed at the capture) lost to a re-instantiated module: the run captures anew
fold = compile_steps([Fn("y", [("x", 0), ("w", 0)], lambda x, w: tf.mul(x, tf.mul(w, 2)))], ["x"], [("y", 0)],
                     {"w": w}, str, "Node")
def folded():
    x = tf.tensor([1.0] * 12, [3, 4])
    y = run(fold, [x], set(), capture=True)[0]
    got = y.data_sync().tolist()
    tf.dispose([x, y])
    return got
res["folded"] = [folded() for _ in range(3)]
backend.recover("a test")
captured = STATS["captured"]
res["folded"] += [folded() for _ in range(3)]
res["recaptured"] = STATS["captured"] - captured
# a weight whose address the program holds (the gather's indices) moved: that run goes the Python way, the
# next one plans anew
k = tf.tensor([2, 0], [2], "int32")
pick = compile_steps([Fn("y", [("x", 0), ("k", 0)], lambda x, k: tf.gather(tf.relu(x), k))], ["x"], [("y", 0)],
                     {"k": k}, str, "Node")
def picked():
    x = tf.tensor([-1.0, 2.0, 3.0], [3])
    y = run(pick, [x], set(), capture=True)[0]
    got = y.data_sync().tolist()
    tf.dispose([x, y])
    return got
res["picked"] = [picked() for _ in range(3)]
(cap,) = pick.captures.values()
program = cap.compiled
res["pinned"] = len(program.pinned)
compiled_before = STATS["compiled"]
program.pinned[next(iter(program.pinned))] += 8
res["moved"] = [picked(), picked(), STATS["compiled"] - compiled_before, program._finalizer.alive]
tf.dispose([w, k])
res["leak"] = tf.memory().num_tensors - before + 1  # w was made before `before`
res
"""


def test_native_checks_guard_the_compiled_program(webtf_page, py):
    """int32 FloorDiv and GatherNd check their operands natively: the compiled program keeps the checks as
    guards (no Python steps), and a run failing one goes the Python way (the cpu kernels: numpy's results
    or the index error); a capture whose folded weights a module re-instantiation lost captures anew; a weight
    whose address the program holds (a gather's indices) moved: that run goes the Python way, the next plans
    anew."""
    res = py(GUARDS_PY)
    ok = [[11, 5, 8], [2, 3, 1, 1, 2, 0]]
    assert res["runs"] == [ok] * 3, res
    assert res["steps"] == 0 and res["compiled"] == 2, res
    assert "Error in gather_nd: invalid indices: [4,1] does not index into [3,4]" in res["out_of_range"], res
    assert res["by_zero"] == [[8, 4, 8], [2, 0, 1, 0, 2, 0]], res
    assert res["large"] == [[11, 1, 0], [2, 3, 0, 1, 0, 0]], res
    assert res["guarded"] == 3 and res["again"] == ok and res["compiled_after"] == 3, res
    assert res["folded"] == [[2.0 * v for v in range(12)]] * 6 and res["recaptured"] == 1, res
    assert res["picked"] == [[3.0, 0.0]] * 3 and res["pinned"] == 1, res
    assert res["moved"] == [[3.0, 0.0], [3.0, 0.0], 1, False], res
    assert res["leak"] == 0, res
