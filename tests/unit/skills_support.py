"""Helpers shared by the skills tests: write SKILL.md folders into a temp tree."""

from __future__ import annotations

from pathlib import Path

import yaml


def skill_text(name: str, description: str = "Does a thing.", body: str = "Do the thing.", **fields: object) -> str:
    header = {"name": name, "description": description}
    header.update(
        {
            key.replace("_", "-") if key in ("argument_hint", "disable_model_invocation") else key: value
            for key, value in fields.items()
        }
    )
    return "---\n" + yaml.safe_dump(header, sort_keys=False, allow_unicode=True) + "---\n" + body + "\n"


def write_skill(skills_dir: Path, folder: str, name: str | None = None, **kwargs: object) -> Path:
    path = skills_dir / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(skill_text(name or folder, **kwargs), encoding="utf-8")  # type: ignore[arg-type]
    return path


def write_raw(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
