"""docs/configuration.md lists every setting the code has, as the code has it (scripts/config_reference.py)."""

from __future__ import annotations

import dataclasses

from app.config import Settings
from scripts.config_reference import PAGE, field_comments, reference, render


def test_the_page_is_what_the_code_generates() -> None:
    page = PAGE.read_text(encoding="utf-8")
    assert render(page) == page, "docs/configuration.md is stale: run python -m scripts.config_reference"


def test_every_user_setting_has_a_row() -> None:
    text = reference()
    for section in dataclasses.fields(Settings):
        if section.metadata.get("internal"):
            continue
        value = getattr(Settings(), section.name)
        names = [f"{section.name}.{f.name}" for f in dataclasses.fields(value) if not f.metadata.get("internal")] if dataclasses.is_dataclass(value) else [section.name]
        for name in names:
            assert f"| `{name}` |" in text, name


def test_comments_above_and_beside_a_field_are_read() -> None:
    class Example:
        # Longest wait,
        # in seconds.
        timeout: float = 1.0
        limit: int = 2
        mode: str = "a"  # a | b

        bare: int = 0
        # Alone.
        last: int = 3

    assert field_comments(Example) == {
        "timeout": "Longest wait, in seconds.",
        "limit": "",  # a comment covers the one field under it
        "mode": "a | b",
        "bare": "",
        "last": "Alone.",
    }
