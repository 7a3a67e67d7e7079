"""The memory package's names, now loaded on first use, are the same objects as before."""

from __future__ import annotations

import importlib
import pkgutil

import app.context.memory as memory
from app.context.memory import secrets


def test_every_exported_name_is_its_home_module_s_object() -> None:
    for name in memory.__all__:
        home = importlib.import_module(memory._HOMES[name])
        assert getattr(memory, name) is getattr(home, name), name


def test_scan_stays_the_secret_scanner_when_every_submodule_is_loaded() -> None:
    # 'scan' is also a submodule's name, and loading a submodule binds its name on the package.
    for module in pkgutil.iter_modules(memory.__path__):
        importlib.import_module(f"app.context.memory.{module.name}")
    from app.context.memory import scan

    assert scan is secrets.scan


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        memory.no_such_name  # noqa: B018
    except AttributeError as error:
        assert "no_such_name" in str(error)
    else:
        raise AssertionError("no AttributeError")
