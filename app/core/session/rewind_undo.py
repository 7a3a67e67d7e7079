"""Undoing what the agent's edit and write_file calls changed since a rewind point, as far as the record holds it.

The record has a ``file_change`` for each successful edit/write (app.core.tools.file_snapshot):
what the file was before and a hash of what the tool left. For each file changed after the
point, the first change says what to put back and the last says what the file must still
hold. A file is only put back when every check holds; otherwise the plan says why not:

- the path is outside the project, or a symlink now (the link could point anywhere);
- the record claims a change no edit/write_file call of the session made (a record written
  by hand, or for another path): nothing the agent wrote, so nothing to undo;
- the file changed since the agent wrote it, or between two of its changes (someone else
  edited it: their work is not overwritten);
- the file was over the snapshot cap when the agent first changed it (only its hash is kept).

What shell commands and other tools did cannot be known, so it is only counted and said.
Restores are written atomically (app.fsutil) and recorded as ``file_change`` records of
their own, so a later rewind sees the file as the undo left it.
"""

from __future__ import annotations

import os
from dataclasses import field
from app.dataclass import dataclass
from pathlib import Path

from app.core.session.records import SUBTYPE_FILE_CHANGE, Record
from app.core.tools.file_snapshot import SNAPSHOT_CAP_BYTES, FileChange, sha256
from app.fsutil import atomic_write_bytes

# The tools whose changes the record holds.
UNDOABLE_TOOLS = ("edit", "write_file")
# The "tool" of a change a rewind made itself.
REWIND_TOOL = "rewind"


@dataclass
class FileRestore:
    """One file the undo will put back as it was (or remove), if it still holds what the agent left."""

    path: Path
    shown: str  # relative to the project
    content: bytes | None  # None: the file did not exist, so it is removed
    expected_sha256: str  # what the agent left, which the file must still hold

    @property
    def action(self) -> str:
        return "remove" if self.content is None else "restore"


@dataclass
class UndoPlan:
    """What undoing back to a rewind point would do, and what it cannot undo; the person is asked before it is applied."""

    restores: list[FileRestore] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # one sentence per file that stays as it is
    other_tool_calls: dict[str, int] = field(default_factory=dict)  # tools whose effects cannot be undone

    @property
    def empty(self) -> bool:
        return not self.restores and not self.refused and not self.other_tool_calls


@dataclass
class UndoResult:
    """The files apply_undo restored or removed, and a sentence for each one it could not."""

    done: list[FileRestore] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


@dataclass
class _Change:
    """A file change from the record, with the tool call that made it."""

    change: FileChange
    tool: str
    tool_call_id: str


def _absent_or(sha: str | None) -> str | None:
    return sha or None


def _state_before(change: FileChange) -> str | None:
    return change.before_sha256 if change.existed else None


def disk_state(path: Path) -> str | None:
    """The hash of the file's bytes now, None when there is no file (a symlink is read as its target)."""
    try:
        return sha256(path.read_bytes())
    except FileNotFoundError:
        return None


def _inside(root: Path, path: Path) -> bool:
    real_root = Path(os.path.realpath(root))
    return path == real_root or real_root in path.parents


def _link_problem(root: Path, path: Path) -> str | None:
    """Why ``path`` may not be written, or None: it must be inside the project with no symlink on the way."""
    if not path.is_absolute() or not _inside(root, path):
        return "is outside the project; a rewind writes only inside it"
    real = Path(os.path.realpath(path))
    if real != path:
        return f"is a symlink now (to {real}); a rewind does not follow it"
    return None


def _called_paths(records: list[Record], root: Path) -> dict[str, tuple[str, set[str]]]:
    """Each edit/write_file call of the session: id -> (tool, the paths its argument names)."""
    calls: dict[str, tuple[str, set[str]]] = {}
    for record in records:
        if record.type != "assistant" or record.message is None:
            continue
        for call in record.message.tool_calls:
            if call.name not in UNDOABLE_TOOLS:
                continue
            try:
                raw = call.parsed_arguments().get("path")
            except ValueError:
                continue
            if not isinstance(raw, str) or not raw or "\x00" in raw:
                continue
            candidate = Path(raw).expanduser()
            if not candidate.is_absolute():
                candidate = root / candidate
            calls[call.id] = (call.name, {os.path.normpath(candidate), os.path.realpath(candidate)})
    return calls


def plan_undo(records: list[Record], since_uuid: str, root: Path, *, side_effect_tools: frozenset[str] = frozenset()) -> UndoPlan:
    """What undoing the file changes recorded after the record ``since_uuid`` would do.

    ``side_effect_tools``: the tools (shell, MCP) whose calls since then are counted as what
    cannot be restored.
    """
    plan = UndoPlan()
    start = next((i for i, r in enumerate(records) if r.uuid == since_uuid), None)
    if start is None:
        plan.refused.append("The record does not hold this message, so it cannot say which files changed since.")
        return plan
    later = records[start:]
    calls = _called_paths(later, root)
    changes: dict[str, list[_Change]] = {}
    for record in later:
        if record.type == "assistant" and record.message is not None:
            for call in record.message.tool_calls:
                if call.name in side_effect_tools:
                    plan.other_tool_calls[call.name] = plan.other_tool_calls.get(call.name, 0) + 1
        if record.type != "system" or record.subtype != SUBTYPE_FILE_CHANGE:
            continue
        payload = record.system_payload or {}
        try:
            change = FileChange.from_payload(payload)
        except ValueError as exc:
            plan.refused.append(f"A file change in the record cannot be used ({exc}); it is left as it is.")
            continue
        tool, call_id = str(payload.get("tool") or ""), str(payload.get("toolCallId") or "")
        changes.setdefault(change.path, []).append(_Change(change, tool, call_id))
    for path_text, found in changes.items():
        restore, problem = _restore_for(Path(path_text), found, calls, root)
        if restore is not None:
            plan.restores.append(restore)
        elif problem:
            plan.refused.append(f"{_shown(root, Path(path_text))} {problem}.")
    return plan


def _restore_for(path: Path, found: list[_Change], calls: dict[str, tuple[str, set[str]]], root: Path) -> tuple[FileRestore | None, str]:
    problem = _link_problem(root, path)
    if problem:
        return None, problem
    first = found[0]
    # The content put back comes only from a change an edit/write_file call of the session made to this path.
    called = calls.get(first.tool_call_id)
    if first.tool not in UNDOABLE_TOOLS or called is None or called[0] != first.tool or str(path) not in called[1]:
        return None, "is named in the record, but no edit or write_file call of the session wrote it; it is left as it is"
    for earlier, later in zip(found, found[1:]):
        if _absent_or(earlier.change.after_sha256) != _state_before(later.change):
            return None, "was changed by someone else between the agent's changes; it is left as it is"
    if first.change.over_cap:
        return None, f"was over the {SNAPSHOT_CAP_BYTES // 1_000_000} MB snapshot cap when the agent changed it, so its earlier content was not kept"
    expected = _absent_or(found[-1].change.after_sha256)
    now = disk_state(path)
    if now != expected:
        return None, "has changed since the agent wrote it (by you or another program); it is left as it is"
    target = first.change.before if first.change.existed else None
    if (sha256(target) if target is not None else None) == now:
        return None, ""  # already as it was
    return FileRestore(path=path, shown=_shown(root, path), content=target, expected_sha256=expected or ""), ""


def _shown(root: Path, path: Path) -> str:
    try:
        return str(path.relative_to(Path(os.path.realpath(root))))
    except ValueError:
        return str(path)


def apply_undo(plan: UndoPlan, root: Path) -> UndoResult:
    """Put the planned files back, each checked again just before it is written."""
    result = UndoResult()
    for restore in plan.restores:
        problem = _link_problem(root, restore.path)
        if problem is None and disk_state(restore.path) != _absent_or(restore.expected_sha256):
            problem = "changed while you were deciding; it is left as it is"
        if problem:
            result.failed.append(f"{restore.shown} {problem}.")
            continue
        try:
            if restore.content is None:
                restore.path.unlink()
            else:
                atomic_write_bytes(restore.path, restore.content)
        except OSError as exc:
            result.failed.append(f"{restore.shown} could not be put back: {exc.strerror or exc}.")
            continue
        result.done.append(restore)
    return result


def restore_payload(restore: FileRestore) -> dict:
    """The ``file_change`` record of a restore: hashes only (what it put back is in the earlier record)."""
    existed = bool(restore.expected_sha256)
    return {
        "tool": REWIND_TOOL,
        "path": str(restore.path),
        "existed": existed,
        "beforeSha256": restore.expected_sha256 or None,
        "afterSha256": sha256(restore.content) if restore.content is not None else "",
        "afterSize": len(restore.content or b""),
    }
