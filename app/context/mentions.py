"""``@path`` mentions in a prompt: which files they name, their content attached, and path completion.

A mentioned file is attached to the message the way Qwen Code (and Gemini CLI before it)
attaches one, after the typed text::

    explain @src/app.py

    --- Content from referenced files ---
    Content from @src/app.py:
    <the file>
    --- End of content ---

Only files inside the project are attached, through the same checks as ``read_file`` (no
path outside the project or through a link out of it, no directory, FIFO or binary file);
anything refused is named with the reason, and the typed text is sent unchanged.
Completion lists the project's files as git sees them (``.gitignore`` respected).
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from dataclasses import field
from app.dataclass import dataclass
from pathlib import Path

from app.core.tools.base import ToolContext
from app.core.tools.errors import ToolError
from app.core.tools.text import load_text

# ``@`` at the start or after a space, then a path; ``\ `` keeps a space inside the path.
# Emails (``a@b.c``) and decorators inside a word are not mentions.
_MENTION = re.compile(r"(?:(?<=\s)|^)@((?:\\ |[^\s@`'\"()\[\]{}<>,;])+)")
HEADER = "--- Content from referenced files ---"
FOOTER = "--- End of content ---"
# One mention attaches at most this much; the rest is for read_file to page through.
MAX_ATTACHED_CHARS = 200_000
# Completion stops listing a huge tree here (a monorepo's node_modules is not what one mentions).
MAX_LISTED_FILES = 50_000
_SKIPPED_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv", "venv", ".mypy_cache", ".pytest_cache", "dist", "build"})


@dataclass(frozen=True)
class Mention:
    """One ``@path`` in the typed text and where it sits (``start`` is the ``@``)."""

    path: str  # as typed, escapes removed
    start: int
    end: int


@dataclass(frozen=True)
class Attachment:
    """A mentioned file's content as attached to the message, under the path shown for it."""

    path: str
    text: str


@dataclass
class Mentioned:
    """The message to send and what the mentions brought (or why not)."""

    message: str
    attachments: list[Attachment] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def attached_chars(self) -> int:
        return sum(len(a.text) for a in self.attachments)


def find_mentions(text: str) -> list[Mention]:
    mentions: list[Mention] = []
    for match in _MENTION.finditer(text):
        raw = match.group(1).rstrip(".:!?")  # a sentence's full stop is not part of the path
        if raw:
            mentions.append(Mention(raw.replace("\\ ", " "), match.start(), match.start() + 1 + len(raw)))
    return mentions


def attach_mentions(text: str, root: Path) -> Mentioned:
    """``text`` with the content of every file it mentions appended (each file once)."""
    mentions = find_mentions(text)
    if not mentions:
        return Mentioned(text)
    ctx = ToolContext(root=root)
    result = Mentioned(text)
    seen: set[str] = set()
    for mention in mentions:
        try:
            path = ctx.resolve(mention.path)
            shown = ctx.display(path)
            if shown in seen:
                continue
            if not path.exists():
                continue  # "@team" or "@latest": not a file, so not a mention at all
            if not path.is_dir() and not stat.S_ISREG(path.stat().st_mode):
                # A FIFO would block the read forever; a device or socket is no file to attach.
                raise ToolError(f"{shown} is not a regular file (a FIFO, device or socket) and is not read")
            content = load_text(ctx, path)
        except ToolError as exc:
            result.problems.append(f"@{mention.path}: {exc}")
            continue
        seen.add(shown)
        if len(content) > MAX_ATTACHED_CHARS:
            content = content[:MAX_ATTACHED_CHARS] + f"\n[… cut at {MAX_ATTACHED_CHARS:,} characters; read_file {shown} reads the rest]"
        result.attachments.append(Attachment(shown, content))
    if result.attachments:
        blocks = [f"Content from @{a.path}:\n{a.text}" for a in result.attachments]
        result.message = f"{text}\n\n{HEADER}\n" + "\n".join(blocks) + f"\n{FOOTER}"
    return result


def mention_at_cursor(text: str, cursor: int) -> Mention | None:
    """The mention being typed at ``cursor`` (``@`` up to the cursor), for completion."""
    for mention in find_mentions(text[:cursor]):
        if mention.end == cursor:
            return mention
    if cursor and text[cursor - 1] == "@" and (cursor == 1 or text[cursor - 2].isspace()):
        return Mention("", cursor - 1, cursor)
    return None


def project_files(root: Path) -> list[str]:
    """Files one may mention: what git tracks or would add (ignored files left out), else a walk."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=root,
            capture_output=True,
            timeout=10,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return _walk(root)
    names = [name for name in listed.decode("utf-8", "replace").split("\0") if name]
    return sorted(set(names))[:MAX_LISTED_FILES]


def _walk(root: Path) -> list[str]:
    found: list[str] = []
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS and not d.startswith("."))
        base = Path(directory).relative_to(root)
        found.extend((base / name).as_posix() for name in sorted(files))
        if len(found) >= MAX_LISTED_FILES:
            break
    return found[:MAX_LISTED_FILES]


def rank_paths(query: str, paths: list[str], limit: int = 8) -> list[str]:
    """Paths matching ``query`` best first: the file name starting with it, then containing it,
    then the path containing it, then its letters in order; shorter paths first within a rank."""
    if not query:
        return sorted(paths, key=lambda p: (p.count("/"), len(p), p))[:limit]
    needle = query.lower()
    scored: list[tuple[int, int, str]] = []
    for path in paths:
        lowered = path.lower()
        name = lowered.rsplit("/", 1)[-1]
        if lowered.startswith(needle) or name.startswith(needle):
            rank = 0
        elif needle in name:
            rank = 1
        elif needle in lowered:
            rank = 2
        elif _in_order(needle, lowered):
            rank = 3
        else:
            continue
        scored.append((rank, len(path), path))
    scored.sort()
    return [path for _, _, path in scored[:limit]]


def _in_order(needle: str, haystack: str) -> bool:
    letters = iter(haystack)
    return all(char in letters for char in needle)


def escape_path(path: str) -> str:
    return path.replace(" ", "\\ ")
