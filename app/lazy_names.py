"""A package's public names, each loaded from its module the first time it is asked for (PEP 562).

Importing any one module of a package runs the package's ``__init__``; when that file imported
every module to re-export their names, a headless turn that needs three of them paid for all
(``app.context.memory``: about 45 ms; ``app.context.skills``: the bash grammar through the
grants' read-only check). ``python -X importtime -m app -p ...`` shows what a turn loads.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(package: str, homes: Mapping[str, str], namespace: dict[str, Any]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``, whose ``homes`` map each name to its module.

    A name found once becomes an ordinary attribute of the package (``namespace`` is its globals()).
    """

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(homes))

    return __getattr__, __dir__
