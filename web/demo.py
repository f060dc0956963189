"""The live demo's loop and state, run inside Pyodide by web/demo.js (which owns the DOM and the camera).

One inference is in flight at a time: each turn of the loop waits for an animation frame, applies a pending
backend or model switch, runs the pipeline on the current source (the <video>, or the sample <img> when no
camera can be used) and publishes the state as JSON to `ui.publish`, which sets `window.webtfDemo` and
draws the overlay. The first run of each (model, backend) pair is reported as warm-up, not as last_ms.
"""

import asyncio
import json
import time
import traceback
from typing import Any

import webtf as tf
import webtf.browser  # noqa: F401  (binds tf.browser)
from webtf.models import pipelines

# a custom build holds only the pipelines of the models its config lists
MODELS = {
    name: (url, getattr(pipelines, cls))
    for name, url, cls in (
        ("blazeface", "models/blazeface.json", "BlazeFace"),
        ("movenet", "models/movenet-lightning.json", "MoveNet"),
    )
    if hasattr(pipelines, cls)
}
NO_MODEL = "none"  # the camera alone, e.g. while the teach section uses the frames
movenet = getattr(pipelines, "movenet", None)
FPS_FRAMES = 10  # the FPS is measured over the last few completed frames


def now_ms() -> float:
    """A monotonic clock in milliseconds."""
    return time.perf_counter() * 1000.0


class Demo:
    """State and loop of the live page; `ui` is the JS glue object from web/demo.js."""

    def __init__(self, ui: Any, model: str, backends: list[str]) -> None:
        self.ui = ui
        self.model = model if model in MODELS or model == NO_MODEL else next(iter(MODELS), "blazeface")
        self.backends = backends
        self.pipelines: dict[str, Any] = {}
        self.warm: set[tuple[str, str]] = set()
        self.pending_backend: str | None = None
        self.pending_model: str | None = None
        self.task: asyncio.Task | None = None
        self.running = False
        self.done: list[float] = []
        self.state: dict[str, Any] = {
            "backend": tf.get_backend(),
            "backends": backends,
            "model": self.model,
            "frames": 0,
            "fps": 0.0,
            "last_ms": None,
            "warmup_ms": None,
            "num_tensors": tf.memory().num_tensors,
            "num_bytes": tf.memory().num_bytes,
            "detections": [],
            "skeleton": [],
            "source_size": None,
            "camera": "none",
            "message": "Press Start camera (or use the sample image).",
            "status": "",
            "running": False,
            "error": None,
        }

    # ---- called from JS ----------------------------------------------------------------------
    def set_camera(self, camera: str, message: str) -> None:
        """Record the camera state ("live", "sample", "denied", "none") and its message."""
        self.state["camera"] = camera
        self.state["message"] = message
        self.publish()

    def start(self) -> None:
        """Start the loop (idempotent)."""
        if self.task is None or self.task.done():
            self.running = True
            self.state["running"] = True
            self.task = asyncio.ensure_future(self.loop())

    async def stop(self) -> None:
        """Stop the loop after the inference in flight, and clear the overlay."""
        self.running = False
        if self.task is not None:
            await self.task
        self.state.update(running=False, detections=[], fps=0.0)
        self.publish()

    async def request_backend(self, name: str) -> None:
        """Switch backend: between frames while running, at once otherwise."""
        if self.running:
            self.pending_backend = name
        else:
            await self.switch_backend(name)
            self.publish()

    async def request_model(self, name: str) -> None:
        """Switch model: between frames while running, at once otherwise."""
        if name not in MODELS and name != NO_MODEL:
            self.state["message"] = f"Unknown model {name!r}; choose one of {', '.join(MODELS)}."
        elif self.running:
            self.pending_model = name
        else:
            self.model = self.state["model"] = name
        self.publish()

    # ---- the loop ----------------------------------------------------------------------------
    async def switch_backend(self, name: str) -> None:
        """tf.set_backend(name), reporting in the message whether it started."""
        before = tf.get_backend()
        try:
            ok = name in tf.ENGINE.factories and await tf.set_backend(name)
        except Exception as error:  # noqa: BLE001 - any failure is reported, the demo goes on
            ok = False
            print(f"webtf demo: set_backend({name!r}) failed: {error}")
        self.state["backend"] = tf.get_backend()
        if ok:
            self.done = []  # FPS restarts on the new backend
            self.state["message"] = f"Backend switched from {before} to {name}."
        else:
            self.state["message"] = f"Backend {name!r} could not start; still on {before}."

    async def pipeline(self) -> Any:
        """The current model's pipeline, loaded on first use."""
        if self.model not in self.pipelines:
            url, cls = MODELS[self.model]
            self.state["status"] = f"Loading {self.model} from {url}..."
            self.publish()
            started = now_ms()
            self.pipelines[self.model] = await cls.load(url)
            self.state["status"] = f"{self.model} loaded in {now_ms() - started:.0f} ms."
        return self.pipelines[self.model]

    async def step(self) -> None:
        """Apply pending switches, then run one inference on the current source if there is one."""
        if self.pending_backend is not None:
            name, self.pending_backend = self.pending_backend, None
            await self.switch_backend(name)
        if self.pending_model is not None:
            self.model, self.pending_model = self.pending_model, None
            self.state.update(model=self.model, detections=[])
            self.done = []
        source = self.ui.source()
        if self.model == NO_MODEL:  # the stats still follow the tensors others (the teach section) hold
            memory = tf.memory()
            self.state.update(num_tensors=memory.num_tensors, num_bytes=memory.num_bytes, backend=tf.get_backend())
        if source is None or self.model == NO_MODEL:
            return
        pipe = await self.pipeline()
        started = now_ms()
        if self.model == "movenet":
            detections = await pipe.estimate_poses(source)
        else:
            detections = await pipe.estimate_faces(source)
        elapsed = now_ms() - started
        key = (self.model, tf.get_backend())
        if key in self.warm:
            self.state["last_ms"] = round(elapsed, 2)
        else:
            self.warm.add(key)
            self.state["warmup_ms"] = round(elapsed, 2)
        finished = now_ms()
        self.done = self.done[-FPS_FRAMES:] + [finished]
        span = (self.done[-1] - self.done[0]) / 1000
        memory = tf.memory()
        self.state.update(
            frames=self.state["frames"] + 1,
            fps=round((len(self.done) - 1) / span, 3) if span > 0 else 0.0,
            detections=detections,
            skeleton=[list(edge) for edge in movenet.SKELETON] if self.model == "movenet" else [],
            source_size=list(self.ui.sourceSize(source).to_py()),
            num_tensors=memory.num_tensors,
            num_bytes=memory.num_bytes,
            backend=tf.get_backend(),
            model=self.model,
        )

    async def loop(self) -> None:
        """requestAnimationFrame-paced inference until stop()."""
        try:
            while self.running:
                await self.ui.nextFrame()
                if not self.running:
                    break
                await self.step()
                self.publish()
        except Exception as error:  # noqa: BLE001 - shown on the page; the loop ends
            traceback.print_exc()
            self.state["error"] = f"{type(error).__name__}: {error}"
            self.state["message"] = f"The demo stopped: {self.state['error']}"
            self.running = False
        finally:
            self.state["running"] = self.running
            self.publish()

    def publish(self) -> None:
        """Send the state to the page as JSON."""
        self.ui.publish(json.dumps(self.state))


def create_demo(ui: Any, model: str, backends_json: str) -> Demo:
    """Entry point for web/demo.js."""
    return Demo(ui, model, json.loads(backends_json))
