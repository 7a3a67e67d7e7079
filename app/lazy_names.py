"""A package's public names, each loaded from its module the first time it is asked for (PEP 562).

Importing any one module of a package runs the package's ``__init__``; when that file imported
every module to re-export their names, a headless turn that needs three of them paid for all
(``app.context.memory``: about 45 ms; ``app.context.skills``: the bash grammar through the
grants' read-only check). ``python -X importtime -m app -p ...`` shows what a turn loads.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from app.dataclass import dataclass
from typing import Any


@dataclass(frozen=True)
class LazyNames:
    """What a package's ``__init__`` binds: ``__all__``, ``__getattr__``, ``__dir__``, and where each name lives."""

    all: list[str]
    getattr: Callable[[str], Any]
    dir: Callable[[], list[str]]
    homes: dict[str, str]  # name -> the module that defines it


def lazy_names(package: str, modules: Mapping[str, Iterable[str]], namespace: dict[str, Any]) -> LazyNames:
    """For ``package``, whose ``modules`` map each submodule (relative name) to the names it exports.

    A name found once becomes an ordinary attribute of the package (``namespace`` is its globals()).
    """
    homes = {name: f"{package}.{module}" for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(homes))

    return LazyNames(sorted(homes), __getattr__, __dir__, homes)
