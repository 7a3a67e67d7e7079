"""Changing one setting in a user's settings.yaml without losing the rest of the file.

Only the top-level block that holds the setting is rewritten; comments and every
other block stay byte for byte. The write is atomic.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from app.config import SettingsError, read_settings_file
from app.fsutil import atomic_write_text

_TOP_LEVEL = re.compile(r"^[^\s#-][^:]*:", re.M)


def update_setting(path: Path, dotted: str, value: Any) -> None:
    """Set ``dotted`` (e.g. ``skills.disabled``) to ``value`` in the YAML file at ``path``."""
    data = read_settings_file(path) or {}
    top, *rest = dotted.split(".")
    block = data.get(top) if isinstance(data.get(top), dict) or not rest else {}
    if rest:
        block = dict(block or {})
        target = block
        for key in rest[:-1]:
            target = target.setdefault(key, {})
        target[rest[-1]] = value
    else:
        block = value
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    rendered = yaml.safe_dump({top: block}, sort_keys=False, allow_unicode=True, default_flow_style=False)
    new_text = _replace_block(text, top, rendered)
    check = yaml.safe_load(new_text) or {}
    if not isinstance(check, dict) or check.get(top) != block:
        raise SettingsError(f"{path}: could not update '{dotted}' safely; edit the file by hand")
    atomic_write_text(path, new_text, mode=0o600 if not path.exists() else None)


def _before_leading_comments(text: str, start: int, end: int) -> int:
    """Comments and blank lines right above the next key belong to it, not to the block being replaced."""
    lines = text[start:end].splitlines(keepends=True)
    while len(lines) > 1 and (not lines[-1].strip() or lines[-1].startswith("#")):
        end -= len(lines.pop())
    return end


def _replace_block(text: str, key: str, rendered: str) -> str:
    """The text with the top-level ``key:`` block replaced by ``rendered`` (appended when absent)."""
    starts = [(m.start(), m.group(0)[:-1].strip()) for m in _TOP_LEVEL.finditer(text)]
    for index, (start, name) in enumerate(starts):
        if name != key:
            continue
        end = starts[index + 1][0] if index + 1 < len(starts) else len(text)
        end = _before_leading_comments(text, start, end)
        return text[:start] + rendered + text[end:]
    separator = "" if not text or text.endswith("\n") else "\n"
    return text + separator + rendered
