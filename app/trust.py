"""Which folders the user trusts: asked once per folder, remembered in the user config dir.

A trusted folder's project layer (``.qwen/settings.yaml``, Qwen Code's
``.qwen/settings.json``, project hooks, project skills' tool grants) applies; an
untrusted one is read for its text only. Trust of a folder covers everything under
it, as Qwen Code's trusted folders do; an answer recorded for a folder deeper down
wins over one for its parent, so one repository inside a trusted parent can still
be declined. Paths are compared resolved, so a symlink to a trusted folder is the
trusted folder and ``..`` tricks change nothing.

The file keeps the shape the hooks trust used (``{"trusted": [...], "declined": [...]}``),
so answers given before folder trust existed still hold.
"""

from __future__ import annotations

import json
from app.dataclass import dataclass
from pathlib import Path

from app.fsutil import atomic_write_text

TRUST_FILE = "trusted-folders.json"
TRUSTED, DECLINED, UNKNOWN = "trusted", "declined", "unknown"


@dataclass(frozen=True)
class TrustAnswer:
    """What the user answered for a path (trusted, declined or not asked yet), and the folder it was recorded for."""

    state: str  # trusted | declined | unknown
    folder: Path | None = None  # the folder the answer was given for (the path itself or a parent)


class FolderTrust:
    def __init__(self, config_dir: Path) -> None:
        self.path = Path(config_dir) / TRUST_FILE

    def _read(self) -> dict[str, list[str]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {TRUSTED: [], DECLINED: []}
        if not isinstance(data, dict):
            return {TRUSTED: [], DECLINED: []}
        return {key: [str(p) for p in data.get(key, []) if isinstance(p, str)] for key in (TRUSTED, DECLINED)}

    def answer(self, folder: Path) -> TrustAnswer:
        """The nearest recorded answer for ``folder`` or one of its parents."""
        data = self._read()
        answers = {path: TRUSTED for path in data[TRUSTED]}
        answers.update({path: DECLINED for path in data[DECLINED]})
        current = _resolved(folder)
        for candidate in (current, *current.parents):
            state = answers.get(str(candidate))
            if state is not None:
                return TrustAnswer(state, candidate)
        return TrustAnswer(UNKNOWN)

    def state(self, folder: Path) -> str:
        """trusted | declined | unknown"""
        return self.answer(folder).state

    def is_trusted(self, folder: Path) -> bool:
        return self.state(folder) == TRUSTED

    def remember(self, folder: Path, trusted: bool) -> None:
        data = self._read()
        key = str(_resolved(folder))
        for bucket in data.values():
            while key in bucket:
                bucket.remove(key)
        data[TRUSTED if trusted else DECLINED].append(key)
        atomic_write_text(self.path, json.dumps(data, indent=2) + "\n", mode=0o600)


def _resolved(folder: Path) -> Path:
    try:
        return Path(folder).expanduser().resolve()
    except (OSError, RuntimeError):  # a symlink loop: compare it as written
        return Path(folder).expanduser().absolute()
