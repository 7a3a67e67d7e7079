"""Reading an environment variable that is either an on/off switch or a path."""

from __future__ import annotations

import os
from app.dataclass import dataclass
from pathlib import Path

_SWITCH_VALUES = frozenset({"0", "false", "1", "true"})
_OFF_VALUES = frozenset({"0", "false"})


@dataclass(frozen=True)
class EnvPath:
    """What an environment variable said: a switch (on or off), a path, or nothing usable."""

    is_switch: bool
    value: str | None  # the lower-cased switch, an absolute path, or None when unset
    is_disabled: bool


_UNSET = EnvPath(is_switch=False, value=None, is_disabled=False)


def resolve_path_from_env(value: str | None, *, home: Path | None, cwd: Path | None = None) -> EnvPath:
    """Classify ``value``: blank, a switch (``0/false/1/true``, any case) or a path.

    A path gets ``~`` and ``~/...`` expanded against ``home`` (None means home is
    unknown, which makes the value unusable) and is made absolute against ``cwd``
    (the process directory by default). Normalisation is lexical: symlinks are kept.
    """
    text = (value or "").strip()
    if not text:
        return _UNSET
    lowered = text.lower()
    if lowered in _SWITCH_VALUES:
        return EnvPath(is_switch=True, value=lowered, is_disabled=lowered in _OFF_VALUES)
    expanded = _expand_home(text, home)
    if expanded is None:
        return _UNSET
    base = str(cwd) if cwd is not None else os.getcwd()
    return EnvPath(is_switch=False, value=os.path.normpath(os.path.join(base, expanded)), is_disabled=False)


def _expand_home(text: str, home: Path | None) -> str | None:
    # Only the bare ``~`` and ``~/...`` forms; ``~user`` is left alone as an ordinary relative name.
    if text != "~" and not text.startswith("~/"):
        return text
    if home is None:
        return None
    return str(home) if text == "~" else os.path.join(str(home), text[2:])
