"""Installed once, used anywhere: the wheel `make install` (pipx) builds runs outside the checkout.

The wheel is built from this tree and unpacked into a directory of its own; the
program then runs from an unrelated project directory with only that directory on
its path, so styles, templates and bundled skills must come from the wheel itself.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(dist), str(ROOT)],
        check=True,
        capture_output=True,
        text=True,
    )
    [wheel] = dist.glob("agentctx_tui-*.whl")
    target = tmp_path_factory.mktemp("site")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(target)
    return target


def _run(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "OPENAI_BASE_URL", "OPENAI_MODEL")}
    env["PYTHONPATH"] = str(site)  # the wheel's copy, not this checkout
    return subprocess.run([sys.executable, "-m", "app", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_the_wheel_carries_styles_templates_and_bundled_skills(installed: Path) -> None:
    app = installed / "app"
    assert (app / "styles" / "app.tcss").is_file()
    assert (app / "tui" / "screens" / "model_picker.tcss").is_file()
    assert (app / "context" / "prompt" / "templates").is_dir()
    assert sorted(p.parent.name for p in (app / "bundled_skills").glob("*/SKILL.md")) == ["memory-hygiene", "new-app", "review", "simplify", "stuck"]


def test_the_installed_program_runs_in_another_project(installed: Path, tmp_path: Path) -> None:
    project = tmp_path / "someone-elses-repo"
    project.mkdir()
    (project / "AGENTS.md").write_text("# Their rules\n\nUse tabs.\n", encoding="utf-8")
    version = _run(installed, project, "--version")
    assert version.returncode == 0 and version.stdout.startswith("agentctx-tui ")
    skills = _run(installed, project, "skills", "list")
    assert skills.returncode == 0, skills.stderr
    assert "review" in skills.stdout and "Bundled:" in skills.stdout
    report = _run(installed, project, "context", "list")
    assert report.returncode == 0, report.stderr
    assert "Instruction files" in report.stdout


def test_the_installed_tui_finds_its_styles(installed: Path, tmp_path: Path) -> None:
    probe = (
        "from app.tui.app import AgentctxApp, style_path\n"
        "from app.context.skills.discovery import bundled_skills_dir\n"
        "import app\n"
        "print(app.__file__)\n"
        "print(all(p.is_file() for p in AgentctxApp.CSS_PATH))\n"
        "print(' '.join(str(p) for p in AgentctxApp.CSS_PATH))\n"
        "print(bundled_skills_dir())\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(installed)
    result = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    location, found, *styles, skills = result.stdout.split()
    assert location.startswith(str(installed)), "imported from the wheel, not the checkout"
    assert found == "True"
    # The top-level styles/ and bundled_skills/ travel inside the package, and the program reads that copy.
    assert styles == [str(installed / "app" / "styles" / "app.tcss")]
    # Each modal screen's own stylesheet sits beside it in the package (app/tui/screens/<name>.tcss).
    screens = installed / "app" / "tui" / "screens"
    assert {p.stem for p in screens.glob("*.tcss")} >= {"approval", "help", "memory", "sessions", "skills", "rewind"}
    assert skills == str(installed / "app" / "bundled_skills")


def test_the_top_level_folders_are_in_the_wheel_not_beside_the_package(installed: Path) -> None:
    assert not (installed / "styles").exists() and not (installed / "bundled_skills").exists()
    assert sorted(p.name for p in (installed / "app" / "styles").glob("*.tcss")) == sorted(p.name for p in (ROOT / "styles").glob("*.tcss"))
