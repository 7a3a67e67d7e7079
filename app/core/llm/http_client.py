"""The httpx2 client for one endpoint, made without the start-up costs a plain one has.

Two costs are left out, both measured on a headless turn (see the report of branch
``robust``; ``python -X importtime -c 'import app.core.llm.http_client as h; h.load_httpx2()'``):

* httpx2 and httpcore2 read their own version with ``importlib.metadata.version()`` at
  import, which imports ``importlib.metadata`` (zipfile, csv, its path finders) just
  to fill ``__version__``: about 10-35 ms. While they import, ``importlib.metadata``
  is a small stand-in whose ``version`` reads the ``*.dist-info`` folder next to the
  package; any other name asked of it loads the real module, so a thread importing
  ``importlib.metadata`` in that window still gets the real thing.
* A default client builds a TLS context with the system CA bundle even for an
  ``http://`` endpoint (about 40 ms). A plain-HTTP endpoint gets a bare verifying
  context with no certificates loaded: nothing uses it, and if anything ever did
  (a redirect to https is not followed) verification would fail, not be skipped.
"""

from __future__ import annotations

import sys
import threading
import types
from pathlib import Path
from typing import Any

_lock = threading.Lock()


def load_httpx2() -> Any:
    """The ``httpx2`` module, imported without metadata look-ups when it was not imported yet."""
    loaded = sys.modules.get("httpx2")
    if loaded is not None:
        return loaded
    with _lock:
        if "importlib.metadata" in sys.modules or "httpx2" in sys.modules:
            import httpx2

            return httpx2
        import importlib

        stand_in = _metadata_stand_in()
        sys.modules["importlib.metadata"] = stand_in
        try:
            import httpx2

            # httpx2 imports httpcore2 (which reads its version too) only when the first client is made.
            import httpcore2  # noqa: F401
        finally:
            if sys.modules.get("importlib.metadata") is stand_in:
                del sys.modules["importlib.metadata"]
            if getattr(importlib, "metadata", None) is stand_in:
                del importlib.metadata
        return httpx2


def _metadata_stand_in() -> types.ModuleType:
    module = types.ModuleType("importlib.metadata", "Stand-in while httpx2 imports (app.core.llm.http_client).")

    def real() -> types.ModuleType:
        if sys.modules.get("importlib.metadata") is module:
            del sys.modules["importlib.metadata"]
        import importlib.metadata

        return importlib.metadata

    def version(name: str) -> str:
        found = _dist_info_version(name)
        return found if found is not None else real().version(name)

    def __getattr__(attr: str) -> Any:  # PEP 562: anything else is the real module's
        if attr.startswith("__"):  # the import system probes __path__ and friends; they are not asks
            raise AttributeError(attr)
        return getattr(real(), attr)

    module.version = version  # type: ignore[attr-defined]
    module.__getattr__ = __getattr__  # type: ignore[attr-defined]
    return module


def _dist_info_version(name: str) -> str | None:
    """The version in the name of ``<name>-<version>.dist-info`` beside the package, if there is one."""
    import importlib.util

    spec = importlib.util.find_spec(name)
    if spec is None or not spec.origin:
        return None
    site = Path(spec.origin).parent.parent
    prefix = name.replace("-", "_").lower() + "-"
    try:
        for entry in site.iterdir():
            lowered = entry.name.lower()
            if lowered.startswith(prefix) and lowered.endswith(".dist-info"):
                return entry.name[len(prefix) : -len(".dist-info")]
    except OSError:
        return None
    return None


def make_client(base_url: str, *, read_timeout: float, connect_timeout: float, headers: dict[str, str]) -> Any:
    """An ``httpx2.AsyncClient`` for ``base_url``; no CA bundle is loaded for a plain-HTTP endpoint."""
    httpx2 = load_httpx2()
    options: dict[str, Any] = {}
    if base_url.lower().startswith("http://"):
        import ssl

        options["verify"] = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    # A redirect is never followed: the Authorization header would go with it, perhaps to another
    # host. The 3xx comes back as an answer and is reported with its target (errors.redirected).
    return httpx2.AsyncClient(
        timeout=httpx2.Timeout(read_timeout, connect=connect_timeout), headers=headers, follow_redirects=False, **options
    )
