"""Every filesystem location the app uses.

User config and data dirs come from platformdirs (``agentctx``); ``AGENTCTX_HOME``
relocates both so tests and users can run hermetically.
"""

from __future__ import annotations

import hashlib
import os
import re
from app.dataclass import dataclass
from functools import cached_property
from pathlib import Path

APP_NAME = "agentctx"
QWEN_DIR = ".qwen"
SETTINGS_FILE = "settings.yaml"
# Qwen Code's own project settings file, read too (in Qwen Code's spelling) in a trusted folder.
QWEN_SETTINGS_FILE = "settings.json"
# Long project paths would make unwieldy directory names; past this we keep a prefix and a hash.
_MAX_SANITIZED = 180


def user_config_dir() -> Path:
    home = os.environ.get("AGENTCTX_HOME", "").strip()
    if home:
        return Path(home).expanduser() / "config"
    from platformdirs import user_config_path

    return user_config_path(APP_NAME, appauthor=False)


def user_data_dir() -> Path:
    home = os.environ.get("AGENTCTX_HOME", "").strip()
    if home:
        return Path(home).expanduser() / "data"
    from platformdirs import user_data_path

    return user_data_path(APP_NAME, appauthor=False)


def find_git_root(start: Path) -> Path | None:
    """Nearest ancestor (or start itself) holding a ``.git`` file or directory."""
    current = start.resolve()
    for candidate in (current, *current.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def find_project_root(cwd: Path) -> Path:
    """The git root when there is one, else the working directory itself."""
    return find_git_root(cwd) or cwd.resolve()


def sanitize_project_path(path: Path) -> str:
    """A directory name for a project: every non-alphanumeric character becomes ``-``."""
    text = re.sub(r"[^a-zA-Z0-9]", "-", str(path))
    if len(text) <= _MAX_SANITIZED:
        return text
    digest = hashlib.sha256(str(path).encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{text[: _MAX_SANITIZED - 13]}-{digest}"


@dataclass(frozen=True)
class Paths:
    """Locations for one working directory."""

    cwd: Path
    config_dir: Path
    data_dir: Path

    @classmethod
    def for_cwd(cls, cwd: Path | None = None) -> Paths:
        return cls(cwd=(cwd or Path.cwd()).resolve(), config_dir=user_config_dir(), data_dir=user_data_dir())

    @cached_property
    def project_root(self) -> Path:
        return find_project_root(self.cwd)

    @property
    def user_settings_file(self) -> Path:
        return self.config_dir / SETTINGS_FILE

    @property
    def project_settings_file(self) -> Path:
        return self.project_root / QWEN_DIR / SETTINGS_FILE

    @property
    def project_settings_json(self) -> Path:
        return self.project_root / QWEN_DIR / QWEN_SETTINGS_FILE

    @property
    def project_state_dir(self) -> Path:
        return self.data_dir / "projects" / sanitize_project_path(self.project_root)

    @property
    def chats_dir(self) -> Path:
        return self.project_state_dir / "chats"

    @property
    def input_history_file(self) -> Path:
        return self.project_state_dir / "input-history.jsonl"


def ensure_private_dir(path: Path) -> Path:
    """Create a directory readable only by the user (it holds prompts and memories)."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path
