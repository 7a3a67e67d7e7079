"""Which topics (memory types) a run touched, worked out from the paths it wrote.

The extraction and dream agents are not asked to report what they changed;
their writes say it. Windows paths may arrive with either slash, so both sides
are compared with ``/``, and a root must be followed by ``/`` so that
``/x/memory-other/...`` is not taken for ``/x/memory/...``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from app.context.memory.paths import AUTO_MEMORY_TYPES


def touched_topics_from_file_paths(file_paths: Iterable[str | Path], roots: Iterable[str | Path]) -> list[str]:
    """The distinct types, in order of first write, of the paths under one of ``roots``."""
    prefixes = [_slashed(root).rstrip("/") + "/" for root in roots]
    topics: list[str] = []
    for file_path in file_paths:
        path = _slashed(file_path)
        for prefix in prefixes:
            if path.startswith(prefix):
                topic = path[len(prefix) :].split("/", 1)[0]
                if topic in AUTO_MEMORY_TYPES and topic not in topics:
                    topics.append(topic)
                break
    return topics


def _slashed(path: str | Path) -> str:
    return str(path).replace("\\", "/")
