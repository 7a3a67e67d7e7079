"""Session facts as people read them: sizes, times, names."""

from __future__ import annotations

from datetime import datetime

_UNITS = ("KB", "MB", "GB", "TB")


def human_size(size: int) -> str:
    """``812 B``, ``12.3 KB``, ``4.1 MB`` (powers of 1024, one decimal below 100)."""
    if size < 1024:
        return f"{size} B"
    value = float(size)
    for unit in _UNITS:
        value /= 1024
        if value < 1024 or unit == _UNITS[-1]:
            return f"{value:.1f} {unit}" if value < 100 else f"{value:.0f} {unit}"
    raise AssertionError("unreachable")


def local_time(moment: datetime | None) -> str:
    """``2023-11-14 22:13`` in the local time zone (``?`` when unknown)."""
    return moment.astimezone().strftime("%Y-%m-%d %H:%M") if moment is not None else "?"
