"""TF.js's LoadOptions for tf.io.http, load_graph_model and load_layers_model, and the HTTP loading they steer:
a custom fetch, the fetch's init, weight URLs (prefix or converter), progress while the shards load."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from ...backends import js as bridge

TF_HUB_MODEL = "model.json"
TF_HUB_SEARCH_PARAM = "?tfjs-format=file"


@dataclass(frozen=True)
class LoadOptions:
    """How to load a model (TF.js LoadOptions, snake_case).

    request_init: the init (dict or JS object) every fetch gets; it must have no body.
    on_progress(fraction): called as the weight shards arrive (0..0.5) and are read (0.5..1).
    fetch_func(url, request_init): used instead of the page's fetch(); returns a Response-like object
    (ok, status, json(), arrayBuffer(); sync or async, JS or Python), so HTTP loading works outside a page too.
    strict: load_layers_model only: False ignores weights the model does not use.
    weight_path_prefix: the shards' URL prefix instead of the model.json's directory.
    from_tf_hub: the URL is a TF Hub module: model.json?tfjs-format=file is appended.
    weight_url_converter(file name) -> URL (sync or async): the URL of each shard.
    stream_weights: accepted for TF.js code; webtf reads every shard whole before decoding.
    A dict may use TF.js's camelCase keys (requestInit, onProgress, fromTFHub, ...).
    """

    request_init: Any = None
    on_progress: Callable[[float], Any] | None = None
    fetch_func: Callable[..., Any] | None = None
    strict: bool = True
    weight_path_prefix: str | None = None
    from_tf_hub: bool = False
    weight_url_converter: Callable[[str], Any] | None = None
    stream_weights: bool = False


_NAMES = tuple(f.name for f in fields(LoadOptions))
#: TF.js's camelCase keys, accepted too
_CAMEL = {"".join(w.capitalize() if i else w for i, w in enumerate(n.split("_"))): n for n in _NAMES}
_CAMEL["fromTFHub"] = "from_tf_hub"


def as_load_options(options: Mapping[str, Any] | LoadOptions | None, where: str) -> LoadOptions:
    """LoadOptions from a dict of its fields (or LoadOptions, or None), checked; ValueError naming `where`."""
    if options is None:
        return LoadOptions()
    if isinstance(options, LoadOptions):
        opts = options
    elif isinstance(options, Mapping):
        named = {_CAMEL.get(k, k): v for k, v in options.items()}
        unknown = sorted(set(named) - set(_NAMES))
        if unknown:
            raise ValueError(f"{where}: unknown load options {unknown}; known: {', '.join(_NAMES)}")
        opts = LoadOptions(**named)
    else:
        raise TypeError(f"{where}: load options must be a dict or LoadOptions, got {type(options).__name__}")
    for name in ("on_progress", "fetch_func", "weight_url_converter"):
        value = getattr(opts, name)
        if value is not None and not callable(value):
            raise TypeError(f"{where}: load option {name} must be callable, got {type(value).__name__}")
    if opts.weight_path_prefix is not None and not isinstance(opts.weight_path_prefix, str):
        raise TypeError(f"{where}: load option weight_path_prefix must be a string")
    if _body(opts.request_init) is not None:
        raise ValueError(f"{where}: requestInit is expected to have no pre-existing body, but has one.")
    return opts


def _body(init: Any) -> Any:
    if init is None:
        return None
    body = init.get("body") if isinstance(init, Mapping) else getattr(init, "body", None)
    return None if body is None or type(body).__name__ == "JsNull" else body


def tf_hub_url(url: str) -> str:
    """The model.json URL of a TF Hub module URL."""
    return (url if url.endswith("/") else url + "/") + TF_HUB_MODEL + TF_HUB_SEARCH_PARAM


def parse_url(url: str) -> tuple[str, str]:
    """(directory with a trailing '/', query string or '') of a model.json URL, as TF.js splits it."""
    slash, query = url.rfind("/"), url.rfind("?")
    return url[:slash] + "/", url[query:] if query > slash else ""


async def _await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


class Fetcher:
    """Fetches with the options' fetch_func and request_init (or the page's fetch())."""

    def __init__(self, opts: LoadOptions, where: str) -> None:
        if opts.fetch_func is None and not bridge.available():
            raise ValueError(
                f"{where}: there is no fetch() outside the page; pass a fetch_func load option to load over HTTP"
            )
        self.opts = opts
        init = opts.request_init
        if init is None or isinstance(init, Mapping):  # every fetch gets an init, {} by default (as in TF.js)
            init = bridge.js_object(dict(init or {})) if bridge.available() else dict(init or {})
        self._init = init

    def start(self, url: str) -> Any:
        """Begin fetching url: an awaitable of its response (a JS fetch starts at once)."""
        fetch = self.opts.fetch_func or bridge.js.fetch
        try:
            return fetch(url, self._init)
        except Exception as e:
            raise OSError(f"Failed to fetch {url}: {e}") from None

    async def response(self, pending: Any, url: str, what: str) -> Any:
        """The response once it arrives; OSError naming `what` for a failed fetch or a status other than 2xx."""
        try:
            resp = await _await(pending)
        except Exception as e:
            raise OSError(f"Failed to fetch {what} {url}: {e}") from None
        if not getattr(resp, "ok", False):
            hint = " Please verify this URL points to the model JSON of the model to load." if what == "model" else ""
            raise OSError(f"Request to {url} failed with status code {getattr(resp, 'status', '?')}.{hint}")
        return resp

    async def model_json(self, url: str) -> Any:
        """The parsed model.json at url (the response's json(), as TF.js reads it)."""
        resp = await self.response(self.start(url), url, "model")
        try:
            got = await _await(resp.json())
        except Exception:
            message = f"Failed to parse model JSON of response from {url}."
            if url.endswith(".pb"):
                message += " Your path contains a .pb file extension; TF.js graph models are model.json files."
            else:
                message += " Please make sure the server is serving valid JSON for this request."
            raise ValueError(message) from None
        if isinstance(got, (str, bytes, bytearray)):
            return json.loads(got)
        if hasattr(got, "to_py"):  # a JS object: through JSON, as nested proxies do not convert whole
            return json.loads(str(bridge.js.JSON.stringify(got)))
        return got

    async def shards(self, urls: list[str]) -> list[bytes]:
        """Every shard's bytes; on_progress(fraction) as each response arrives (to 0.5) and is read (to 1)."""
        progress = self.opts.on_progress
        pending = [self.start(u) for u in urls]
        responses = []
        for k, (p, u) in enumerate(zip(pending, urls, strict=True)):
            responses.append(await self.response(p, u, "weight shard"))
            if progress:
                progress(0.5 * (k + 1) / len(urls))
        out = []
        for k, r in enumerate(responses):
            out.append(_bytes(await _await(r.arrayBuffer())))
            if progress:
                progress(0.5 + 0.5 * (k + 1) / len(urls))
        return out

    async def shard_urls(self, model_url: str, paths: list[str]) -> list[str]:
        """The URL of each shard path: weight_url_converter(path), else prefix + path + the URL's query."""
        convert = self.opts.weight_url_converter
        if convert is not None:
            return [str(await _await(convert(p))) for p in paths]
        prefix, suffix = parse_url(model_url)
        prefix = self.opts.weight_path_prefix or prefix
        return [prefix + p + suffix for p in paths]

    async def post(self, url: str, files: dict[str, tuple[bytes, str]]) -> Any:
        """POST files (name -> (bytes, MIME type)) to url as multipart form data with the request_init (in the
        page a FormData of Blobs; elsewhere the body is the dict name -> bytes); the response, checked."""
        if bridge.available():
            form = bridge.js.FormData.new()
            for name, (data, mime) in files.items():
                blob = bridge.js.Blob.new(bridge.to_js([bridge.uint8_array(data)]), bridge.js_object({"type": mime}))
                form.append(name, blob, name)
            req = bridge.js.Object.assign(bridge.js_object({"method": "POST"}), self._init)
            req.body = form
        else:
            req = {"method": "POST", **self._init, "body": {name: data for name, (data, _) in files.items()}}
        fetch = self.opts.fetch_func or bridge.js.fetch
        resp = await _await(fetch(url, req))
        if not getattr(resp, "ok", False):
            raise OSError(
                f"BrowserHTTPRequest.save() failed due to HTTP response status {getattr(resp, 'status', '?')}."
            )
        return resp


def _bytes(buf: Any) -> bytes:
    if hasattr(buf, "to_bytes"):
        return bytes(buf.to_bytes())
    return bytes(buf)
