"""Repositories shaped like real ones, written fresh for each test (no file copied from any project).

The shapes come from what public repositories do with their instruction files: a
monorepo with AGENTS.md at several levels, CLAUDE.md kept as a symlink to AGENTS.md or
holding nothing but ``@AGENTS.md``, long files of headed rule sections, prose full of
``@decorators`` and `` `@latest` `` that are not imports, and skills under both
``.qwen/skills`` and ``.agents/skills``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

PYTEST_NOTES = (
    "## Testing\n\n"
    "- Use `@pytest.fixture` for shared setup; `@pytest.mark.slow` marks the long ones.\n"
    "- Pin tools by version, never `@latest`: `npx prettier@3.3.3`.\n"
    "- Mark old helpers with @deprecated and say what replaces them.\n"
    "- Questions go to @maintainers on the tracker.\n"
)


def rules_file(title: str, chars: int) -> str:
    """A long AGENTS.md: numbered sections of rules, the last one mandatory, ``chars`` long give or take a line."""
    head = f"# {title}\n\nThis file tells coding agents how to work in this repository.\n\n"
    sections: list[str] = []
    index = 1
    while len(head) + sum(len(s) + 2 for s in sections) < chars - 300:
        rules = "\n".join(
            f"- {index}.{n} Run `make check` before pushing; a change that affects the public API needs a changelog entry."
            for n in range(1, 9)
        )
        sections.append(f"## {index}. Section {index}\n\n{rules}")
        index += 1
    sections.append("## Mandatory: public API compatibility\n\n- Never remove a public function without a deprecation cycle.")
    return head + "\n\n".join(sections) + "\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def git(repo: Path, *args: str) -> str:
    command = ["git", "-C", str(repo), "-c", "user.name=Dev", "-c", "user.email=dev@example.com", "-c", "commit.gpgsign=false", *args]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()


def monorepo(root: Path, *, root_chars: int = 24_000) -> Path:
    """``root`` as a git repository with instruction files at four levels and skills at both project dirs."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    write(root / "AGENTS.md", rules_file("Monorepo guidelines", root_chars))
    (root / "CLAUDE.md").symlink_to("AGENTS.md")  # read once, as AGENTS.md
    write(root / "packages" / "AGENTS.md", "# Packages\n\nEvery package has its own tests.\n")
    write(root / "packages" / "core" / "AGENTS.md", "# core\n\n" + PYTEST_NOTES)
    write(root / "packages" / "core" / "src" / "AGENTS.md", "# core/src\n\nKeep modules under 400 lines.\n")
    write(root / "docs" / "AGENTS.md", "# docs\n\nWrite in plain English.\n")
    write(root / "docs" / "CLAUDE.md", "@AGENTS.md\n")  # the whole file is an import
    write(root / "packages" / "core" / "src" / "engine.py", "def run():\n    return 1\n")
    # Skills: the same name at both project dirs (.qwen wins), and a multi-line YAML description.
    write(
        root / ".qwen" / "skills" / "release" / "SKILL.md",
        "---\nname: release\ndescription: |-\n  Cut a release: bump, tag, push.\n  Only on main.\n---\nSteps.\n",
    )
    write(root / ".agents" / "skills" / "release" / "SKILL.md", "---\nname: release\ndescription: The other release skill.\n---\nOther.\n")
    write(
        root / ".agents" / "skills" / "lint" / "SKILL.md",
        "---\nname: lint\ndescription: Run the linters; don't \"fix\" <generated> files.\n---\nLint.\n",
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Initial import")
    git(root, "commit", "-q", "--allow-empty", "-m", "Add CI")
    write(root / "packages" / "core" / "src" / "engine.py", "def run():\n    return 2\n")
    write(root / "notes.txt", "scratch\n")
    return root
