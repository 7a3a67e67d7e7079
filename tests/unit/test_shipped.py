"""styles/ and bundled_skills/ are found from a checkout (top level) and from an installed wheel (inside the package)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.shipped import BUNDLED_SKILLS, STYLES, shipped_dir, shipped_file

ROOT = Path(__file__).resolve().parents[2]
PROBE = "from app.shipped import shipped_dir; print(shipped_dir('styles'))"


def _layout(site: Path) -> None:
    """A package laid out as the program would be somewhere else: app/ with only what shipped.py needs."""
    (site / "app").mkdir(parents=True)
    for name in ("__init__.py", "shipped.py"):
        shutil.copy(ROOT / "app" / name, site / "app" / name)


def _probe(site: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(site)}
    result = subprocess.run([sys.executable, "-c", PROBE], cwd=site, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_a_checkout_reads_the_top_level_folders() -> None:
    assert shipped_dir(STYLES) == ROOT / "styles"
    assert shipped_dir(BUNDLED_SKILLS) == ROOT / "bundled_skills"
    assert shipped_file(STYLES, "app.tcss") == ROOT / "styles" / "app.tcss"


def test_an_installed_package_reads_its_own_copy(tmp_path: Path) -> None:
    _layout(tmp_path)
    (tmp_path / "app" / "styles").mkdir()
    assert _probe(tmp_path) == str(tmp_path / "app" / "styles")


def test_another_projects_styles_beside_an_installed_package_are_not_taken(tmp_path: Path) -> None:
    # site-packages/styles may belong to anything; only a checkout (pyproject.toml beside app/) is read.
    _layout(tmp_path)
    (tmp_path / "styles").mkdir()
    (tmp_path / "styles" / "app.tcss").write_text("Screen { background: red; }\n", encoding="utf-8")
    assert _probe(tmp_path) == "None"


def test_a_missing_file_names_both_places() -> None:
    with pytest.raises(FileNotFoundError, match=r"styles/nothing\.tcss is not in .*app/styles nor in .*/styles: .*reinstall"):
        shipped_file(STYLES, "nothing.tcss")
