"""What of the prompt survives a restart: the history of what was sent, and unsent words (the draft)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from app.fsutil import atomic_write_text
from app.paths import ensure_private_dir

if TYPE_CHECKING:
    from pathlib import Path

    from app.paths import Paths
    from app.tui.widgets.prompt import PromptInput

HISTORY_LIMIT = 500


def load_input_history(paths: Paths) -> list[str]:
    path = paths.input_history_file
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()[-HISTORY_LIMIT:]
    except OSError:
        return []
    history: list[str] = []
    for line in lines:
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue  # a torn last line from a crash; the rest is fine
        if isinstance(value, str):
            history.append(value)
    return history


def append_input_history(paths: Paths, text: str) -> None:
    """Raises OSError when the history cannot be written (the caller says so)."""
    ensure_private_dir(paths.project_state_dir)
    # Bytes in one write, as the session record does: a long prompt is never split in two.
    line = (json.dumps(text, ensure_ascii=False) + "\n").encode("utf-8", "surrogatepass")
    with paths.input_history_file.open("ab") as handle:
        handle.write(line)


def draft_file(paths: Paths) -> Path:
    return paths.project_state_dir / "prompt-draft.txt"


def save_draft(paths: Paths, text: str) -> None:
    """Unsent words survive quitting: they come back in the prompt next time (none: the file goes)."""
    try:
        if text.strip():
            ensure_private_dir(paths.project_state_dir)
            atomic_write_text(draft_file(paths), text, mode=0o600)
        elif draft_file(paths).exists():
            draft_file(paths).unlink()
    except OSError:
        pass


def read_draft(paths: Paths) -> str:
    try:
        return draft_file(paths).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def save_prompt(paths: Paths, app: Any) -> None:
    """What the prompt holds on quit (``app``: the running app; quitting before its prompt was mounted saves nothing)."""
    try:
        text = app.prompt.text
    except Exception:  # noqa: BLE001 - no prompt widget yet
        return
    save_draft(paths, text)


def restore_prompt(paths: Paths, prompt: PromptInput) -> None:
    text = read_draft(paths)
    if text.strip():
        prompt.load_text(text)
        prompt.move_cursor(prompt.document.end)


def shelve_draft(paths: Paths, prompt: PromptInput) -> str:
    """Move unsent words out of the prompt into its history (↑ brings them back, here and after a
    restart), so what replaces them is not sent glued to them. Returns what was moved ("" for none)."""
    text = prompt.text
    if not text.strip():
        return ""
    prompt.remember(text)
    try:
        append_input_history(paths, text)
    except OSError:
        pass  # still one ↑ away in this run; the prompt history file is only the copy for next time
    prompt.load_text("")
    return text
