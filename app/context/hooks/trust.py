"""Which folders the user trusts to run their project hooks: asked once, remembered."""

from __future__ import annotations

import json
from pathlib import Path

from app.fsutil import atomic_write_text

TRUST_FILE = "trusted-folders.json"


class FolderTrust:
    def __init__(self, config_dir: Path) -> None:
        self.path = config_dir / TRUST_FILE

    def _read(self) -> dict[str, list[str]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {"trusted": [], "declined": []}
        return {key: [str(p) for p in data.get(key, []) if isinstance(p, str)] for key in ("trusted", "declined")}

    def state(self, folder: Path) -> str:
        """trusted | declined | unknown"""
        data = self._read()
        key = str(folder.resolve())
        if key in data["trusted"]:
            return "trusted"
        return "declined" if key in data["declined"] else "unknown"

    def remember(self, folder: Path, trusted: bool) -> None:
        data = self._read()
        key = str(folder.resolve())
        for bucket in data.values():
            if key in bucket:
                bucket.remove(key)
        data["trusted" if trusted else "declined"].append(key)
        atomic_write_text(self.path, json.dumps(data, indent=2), mode=0o600)
