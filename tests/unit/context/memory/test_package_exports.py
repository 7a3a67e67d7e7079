"""The memory and skills packages' names, loaded on first use, are the same objects as their modules'."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import app.context.memory as memory
import app.context.skills as skills


@pytest.mark.parametrize("package", [memory, skills], ids=["memory", "skills"])
def test_every_exported_name_is_its_home_module_s_object(package) -> None:  # type: ignore[no-untyped-def]
    for name in package.__all__:
        home = importlib.import_module(package._NAMES.homes[name])
        assert getattr(package, name) is getattr(home, name), name


# What importing one light module of each package must not load (as the eager __init__ did).
HEAVY = {
    "app.context.memory.paths": ["recall", "selector", "terms", "agents", "index", "forget", "secrets", "schedule"],
    "app.context.skills.discovery": ["grants", "watch", "tool", "activation", "drafts"],
}


@pytest.mark.parametrize("leaf", sorted(HEAVY))
def test_importing_one_module_loads_none_of_the_heavy_ones(leaf: str) -> None:
    # The point of the lazy names: a turn that needs paths.py does not load recall, the stemmer's
    # word lists, the bash grammar... Checked in a fresh interpreter, where nothing is loaded yet.
    package = leaf.rsplit(".", 1)[0]
    code = f"import sys, {leaf}\nprint(' '.join(sorted(sys.modules)))"
    loaded = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split())
    assert leaf in loaded
    assert not {f"{package}.{name}" for name in HEAVY[leaf]} & loaded


def test_scan_is_the_listing_module_and_the_secret_scanner_stays_in_secrets() -> None:
    # The package used to export the secret scanner's scan() under the name of its own submodule.
    from app.context.memory import scan as listing
    from app.context.memory.secrets import scan

    assert listing.__name__ == "app.context.memory.scan"
    assert callable(scan)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        memory.no_such_name  # noqa: B018
    with pytest.raises(AttributeError, match="no_such_name"):
        skills.no_such_name  # noqa: B018
