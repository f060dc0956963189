"""Model management (TF.js tf.io.listModels / copyModel / moveModel / removeModel) over model stores
registered by scheme (indexeddb, localstorage in the browser)."""

from __future__ import annotations

from typing import Any, Protocol

from .artifacts import ModelArtifactsInfo
from .router import get_load_handlers, get_save_handlers, only_handler

SCHEME_SUFFIX = "://"


class ModelStoreManager(Protocol):
    """A store that can list and remove the models saved in it (paths without the scheme)."""

    async def list_models(self) -> dict[str, ModelArtifactsInfo]: ...

    async def remove_model(self, path: str) -> ModelArtifactsInfo: ...


_managers: dict[str, ModelStoreManager] = {}


def register_manager(scheme: str, manager: ModelStoreManager) -> None:
    """Make `manager` the store for `scheme` ('indexeddb' or 'indexeddb://')."""
    scheme = scheme.removesuffix(SCHEME_SUFFIX)
    if not scheme:
        raise ValueError("register_manager: scheme must not be empty")
    if scheme in _managers:
        raise ValueError(f"A model store manager is already registered for scheme '{scheme}'")
    _managers[scheme] = manager


def _manager(url: str) -> tuple[ModelStoreManager, str]:
    scheme, sep, path = url.partition(SCHEME_SUFFIX)
    if not sep:
        raise ValueError(
            f"The URL '{url}' has no scheme; model stores here: {', '.join(s + SCHEME_SUFFIX for s in _managers)}"
        )
    if scheme not in _managers:
        raise ValueError(f"Cannot find a model store manager for scheme '{scheme}'")
    return _managers[scheme], path


async def list_models() -> dict[str, ModelArtifactsInfo]:
    """Every model in every store, by URL ('indexeddb://name': its ModelArtifactsInfo)."""
    out: dict[str, ModelArtifactsInfo] = {}
    for scheme, manager in _managers.items():
        for path, info in (await manager.list_models()).items():
            out[scheme + SCHEME_SUFFIX + path] = info
    return out


async def remove_model(url: str) -> ModelArtifactsInfo:
    """Delete a stored model; returns the info it had."""
    manager, path = _manager(url)
    return await manager.remove_model(path)


async def copy_model(source_url: str, dest_url: str) -> ModelArtifactsInfo:
    """Copy a model from one URL to another (within a store or across stores)."""
    return await _clone(source_url, dest_url, False)


async def move_model(source_url: str, dest_url: str) -> ModelArtifactsInfo:
    """Move a model: copy it, then delete the source (first, when both are in the same store, to free room)."""
    return await _clone(source_url, dest_url, True)


async def _clone(source_url: str, dest_url: str, delete_source: bool) -> ModelArtifactsInfo:
    if source_url == dest_url:
        raise ValueError(f"Old path and new path are the same: '{source_url}'")
    loader = only_handler(get_load_handlers(source_url), source_url, "load")
    saver = only_handler(get_save_handlers(dest_url), dest_url, "save")
    same_store = source_url.partition(SCHEME_SUFFIX)[0] == dest_url.partition(SCHEME_SUFFIX)[0]
    artifacts = await loader.load()
    if delete_source and same_store:
        await remove_model(source_url)
    result: dict[str, Any] = await saver.save(artifacts)
    if delete_source and not same_store:
        await remove_model(source_url)
    return result["model_artifacts_info"]
