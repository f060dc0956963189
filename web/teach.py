"""Teach the camera new classes (webcam transfer learning), run inside Pyodide by web/teach.js.

A frozen MobileNetV2 (nsfwjs 4.3.0's, run up to `flatten_1`: the 1280 pooled ImageNet features before
nsfwjs's own classifier) turns the centre square of a frame into an embedding; examples are kept as those
embeddings, one tensor each, never as frames. A small head (tf.sequential: dense relu, dense softmax) trains on
them with model.fit and then predicts every frame (a still image once). The state goes to `ui.publish` as JSON
(window.webtfTeach).
webtf's layers and training families are imported when first used (a button press), not with this file, so that
the page's snapshot and boot leave them out.
"""

from __future__ import annotations

import asyncio
import json
import time
import traceback
from typing import TYPE_CHECKING, Any

import webtf as tf
import webtf.browser  # noqa: F401  (binds tf.browser)

if TYPE_CHECKING:
    from webtf.models.layers import LayersModel

EXTRACTOR_URL = "models/mobilenet_v2/model.json"
FEATURES = "flatten_1"  # the pooled features, before nsfwjs's dense layers
SIZE = 224  # MobileNetV2's input side
HIDDEN = 64  # units of the head's hidden layer
SAVE_NAME = "webtf-teach"  # indexeddb://webtf-teach, downloads webtf-teach.json + webtf-teach.weights.bin
OPTIMIZERS = ("adam", "sgd", "rmsprop")  # tf.train.<name>


def now_ms() -> float:
    """A monotonic clock in milliseconds."""
    return time.perf_counter() * 1000.0


class Teacher:
    """Classes, examples, the head and the prediction loop; `ui` is the JS glue object from web/teach.js."""

    def __init__(self, ui: Any) -> None:
        self.ui = ui
        self.extractor: LayersModel | None = None
        self.head: LayersModel | None = None
        self.optimizer: Any = None
        self.generation = 0  # counts heads: a still image is classified again by a new one
        self.names: list[str] = []
        self.examples: list[list[tf.Tensor]] = []
        self.loop_task: asyncio.Task | None = None
        self.done: list[float] = []  # when the last predicted frames finished, for the frame rate
        self.state: dict[str, Any] = {}
        self.clear()

    def clear(self) -> None:
        """Two empty classes, no head, no history."""
        self.names = ["Class 1", "Class 2"]
        self.examples = [[], []]
        self.state = {
            "training": False, "epoch": 0, "epochs": 0, "history": [], "prediction": None, "fps": 0.0,
            "examples_per_s": None, "embed_ms": None, "epoch_ms": None, "acc1_ms": None, "message": "",
        }  # fmt: skip

    # ---- examples --------------------------------------------------------------------------------
    async def features(self) -> LayersModel:
        """The frozen feature extractor, loaded on first use."""
        if self.extractor is None:
            message = self.state["message"]
            self.say("Loading MobileNetV2 (the feature extractor)...")
            self.extractor = await tf.load_layers_model(EXTRACTOR_URL)
            self.extractor.trainable = False
            self.say(message)
        return self.extractor

    def embed(self, extractor: LayersModel, source: Any) -> tf.Tensor:
        """The [1, 1280] features of the centre square of source, resized to 224x224 and scaled to [0, 1]."""

        def run() -> tf.Tensor:
            pixels = tf.browser.from_pixels(source)
            height, width = pixels.shape[:2]
            side = min(height, width)
            square = tf.slice(pixels, [(height - side) // 2, (width - side) // 2, 0], [side, side, 3])
            image = tf.image.resize_bilinear(tf.expand_dims(tf.cast(square, "float32"), 0), [SIZE, SIZE])
            return extractor.execute(tf.div(image, 255), FEATURES)

        return tf.tidy(run)

    async def record(self, index: int, hold: bool) -> None:
        """Add one example of class index from the current source; with hold, one per frame while its button
        is held (ui.holding())."""
        started, count = now_ms(), 0
        try:
            while True:
                source = self.ui.source()
                if source is None:
                    self.say("No source: press Start camera or Use sample image first.")
                    break
                extractor = await self.features()
                begin = now_ms()
                example = tf.keep(self.embed(extractor, source))
                self.examples[index].append(example)
                await example.data()  # webgl: wait for the GPU, so that recording never runs ahead of it
                self.state["embed_ms"] = round(now_ms() - begin, 1)
                count += 1
                self.ui.thumbnail(index, source)
                self.state["examples_per_s"] = round(count * 1000 / (now_ms() - started), 2)
                n = len(self.examples[index])
                self.say(f"{n} example{'' if n == 1 else 's'} of {self.names[index]}.")
                if not hold or self.ui.holding() != index:
                    break
                await self.ui.nextFrame()
        except Exception as error:  # noqa: BLE001 - shown on the page
            self.fail(error)

    def add_class(self) -> None:
        """A new empty class (the head is trained again for it)."""
        self.names.append(f"Class {len(self.names) + 1}")
        self.examples.append([])
        self.publish()

    def rename(self, index: int, name: str) -> None:
        """Rename class index."""
        self.names[index] = name.strip() or f"Class {index + 1}"
        self.publish()

    # ---- training --------------------------------------------------------------------------------
    def dispose_head(self) -> None:
        """Free the head and its optimizer."""
        if self.head is not None:
            self.head.dispose()
        if self.optimizer is not None:
            self.optimizer.dispose()
        self.head = self.optimizer = None
        self.generation += 1
        self.state["prediction"] = None

    async def train(self, options_json: str) -> None:
        """model.fit a new head on every example; options: {optimizer, learning_rate, epochs, batch_size}."""
        options = json.loads(options_json)
        empty = [name for name, ex in zip(self.names, self.examples, strict=True) if not ex]
        if empty:
            verb = "has" if len(empty) == 1 else "have"
            self.say(f"Record examples of every class first ({', '.join(empty)} {verb} none).")
            return
        if options["optimizer"] not in OPTIMIZERS:
            self.say(f"Unknown optimizer {options['optimizer']!r}; choose one of {', '.join(OPTIMIZERS)}.")
            return
        self.dispose_head()
        n = len(self.names)
        self.optimizer = getattr(tf.train, options["optimizer"])(float(options["learning_rate"]))
        self.head = tf.sequential()
        self.head.add(tf.layers.dense(units=HIDDEN, activation="relu", input_shape=[1280]))
        self.head.add(tf.layers.dense(units=n, activation="softmax"))
        self.head.compile(optimizer=self.optimizer, loss="categoricalCrossentropy", metrics=["accuracy"])
        labels = [i for i, ex in enumerate(self.examples) for _ in ex]
        xs = tf.concat([t for ex in self.examples for t in ex], 0)
        ys = tf.tidy(lambda: tf.cast(tf.one_hot(tf.tensor(labels, dtype="int32"), n), "float32"))
        epochs = int(options["epochs"])
        started = now_ms()
        self.state.update(training=True, epoch=0, epochs=epochs, history=[], acc1_ms=None, epoch_ms=None)
        self.say(f"Training on {len(labels)} examples...")

        def epoch_end(epoch: int, logs: dict[str, float]) -> None:
            elapsed = now_ms() - started
            self.state["history"].append({"loss": logs["loss"], "acc": logs["acc"], "ms": round(elapsed, 1)})
            self.state.update(epoch=epoch + 1, epoch_ms=round(elapsed / (epoch + 1), 1))
            if logs["acc"] >= 1.0 and self.state["acc1_ms"] is None:
                self.state["acc1_ms"] = round(elapsed, 1)
            self.say(f"Epoch {epoch + 1}/{epochs}: loss {logs['loss']:.4f}, accuracy {logs['acc']:.2f}")

        try:
            await self.head.fit(
                xs, ys, batch_size=int(options["batch_size"]), epochs=epochs, verbose=0,
                callbacks=[{"on_epoch_end": epoch_end}],
            )  # fmt: skip
            self.say(f"Trained {self.state['epoch']} epochs in {now_ms() - started:.0f} ms: predicting.")
        except Exception as error:  # noqa: BLE001 - shown on the page
            self.dispose_head()
            self.fail(error)
        finally:
            xs.dispose()
            ys.dispose()
            self.state["training"] = False
            self.publish()
        self.predict_loop()

    def stop(self) -> None:
        """Stop training after the current batch."""
        if self.head is not None and self.state["training"]:
            self.head.stop_training = True

    # ---- prediction ------------------------------------------------------------------------------
    def predict_loop(self) -> None:
        """Start predicting every frame (idempotent)."""
        if self.head is not None and (self.loop_task is None or self.loop_task.done()):
            self.done = []
            self.loop_task = asyncio.ensure_future(self.loop())

    async def loop(self) -> None:
        """One prediction per animation frame, while there is a head."""
        seen: tuple[int, str] | None = None  # the head and still image predicted last: not again
        try:
            while self.head is not None:
                await self.ui.nextFrame()
                source = self.ui.source()
                if source is None or self.head is None or self.state["training"]:
                    continue
                still = None if source.id == "video" else (self.generation, str(source.currentSrc))
                if still is None or still != seen:
                    await self.predict(await self.features(), source)
                seen = still
        except Exception as error:  # noqa: BLE001 - shown on the page; the loop ends
            self.fail(error)

    async def predict(self, extractor: LayersModel, source: Any) -> None:
        """Classify one frame of source."""
        head = self.head
        assert head is not None
        probs = tf.tidy(lambda: head.predict(self.embed(extractor, source)))
        values = (await probs.data()).tolist()
        probs.dispose()
        index = max(range(len(values)), key=values.__getitem__)
        self.done = self.done[-10:] + [now_ms()]
        span = (self.done[-1] - self.done[0]) / 1000
        self.state["fps"] = round((len(self.done) - 1) / span, 3) if span > 0 else 0.0
        self.state["prediction"] = {
            "index": index, "label": self.names[index], "probs": values, "source": str(source.id),
            "frame": (self.state["prediction"] or {}).get("frame", 0) + 1,
        }  # fmt: skip
        self.publish()

    # ---- save, load, reset -----------------------------------------------------------------------
    async def save(self) -> None:
        """The head with the class names: into IndexedDB, and offered as a file download."""
        if self.head is None:
            self.say("Train (or load) a model before saving it.")
            return
        self.head.set_user_defined_metadata(
            {"classes": self.names, "features": f"{EXTRACTOR_URL}#{FEATURES}"}
        )
        await self.head.save(f"indexeddb://{SAVE_NAME}")
        await self.head.save(f"downloads://{SAVE_NAME}")
        self.say(f"Saved to IndexedDB ({SAVE_NAME}) and as {SAVE_NAME}.json + {SAVE_NAME}.weights.bin.")

    async def load(self, files: Any = None) -> None:
        """Restore a saved head and its classes: from IndexedDB, or from picked files (.json and .weights.bin)."""
        if files is not None:
            picked = sorted(files, key=lambda f: not str(f.name).endswith(".json"))
            where: Any = tf.io.browser_files(picked)
        else:
            where = f"indexeddb://{SAVE_NAME}"
        try:
            head = await tf.load_layers_model(where)
        except Exception as error:  # noqa: BLE001 - nothing saved, or a wrong file: say so
            self.say(f"Could not load a saved model: {error}")
            return
        names = (head.get_user_defined_metadata() or {}).get("classes")
        units = head.outputs[0].shape[-1]
        if not isinstance(names, list) or len(names) != units:
            names = [f"Class {i + 1}" for i in range(units)]
        self.dispose_head()
        self.dispose_examples()
        self.head, self.names = head, [str(name) for name in names]
        self.examples = [[] for _ in names]
        self.state.update(history=[], epoch=0, epochs=0)
        self.say(f"Loaded a model of {len(names)} classes ({', '.join(self.names)}): predicting.")
        self.predict_loop()

    def dispose_examples(self) -> None:
        """Free every example."""
        for ex in self.examples:
            for t in ex:
                t.dispose()

    async def reset(self) -> None:
        """Free the classes, examples, head and extractor (what was saved stays saved)."""
        self.stop()
        while self.state["training"]:  # fit ends after its current batch
            await asyncio.sleep(0.02)
        self.dispose_head()
        if self.loop_task is not None:
            await self.loop_task
        self.dispose_examples()
        if self.extractor is not None:
            self.extractor.dispose()
            self.extractor = None
        self.clear()
        self.say("Reset: two empty classes.")

    # ---- state -----------------------------------------------------------------------------------
    def say(self, message: str) -> None:
        """Show message and publish."""
        self.state["message"] = message
        self.publish()

    def fail(self, error: Exception) -> None:
        """Report an error on the page."""
        traceback.print_exc()
        self.say(f"Error: {type(error).__name__}: {error}")

    def publish(self) -> None:
        """Send the state to the page as JSON."""
        classes = [{"name": n, "count": len(ex)} for n, ex in zip(self.names, self.examples, strict=True)]
        state = {
            **self.state,
            "backend": tf.get_backend(),
            "classes": classes,
            "trained": self.head is not None,
        }
        self.ui.publish(json.dumps({**state, "num_tensors": tf.memory().num_tensors}))


def create_teacher(ui: Any) -> Teacher:
    """Entry point for web/teach.js."""
    return Teacher(ui)
