"""What is re-attached after a summary: the files touched last, the skills invoked and the last images (spec: post-compact)."""

from __future__ import annotations

import json
import os
import re
from dataclasses import field
from app.dataclass import dataclass
from pathlib import Path

from app.core.history import Message
from app.core.images import ImagePart, sniff_image_mime

MAX_FILES = 5
MAX_IMAGES = 3
MAX_TOKENS_PER_FILE = 5_000
TOKEN_BUDGET = 50_000
FILE_TOOLS = frozenset({"read_file", "write_file", "edit", "replace"})
REFERENCE_INTRO = (
    "The following files were recently accessed before context was compacted. They are listed as reference only "
    "because they are large. Use `read_file` to see their current content if you need it."
)
EMBED_INTRO = "Recently accessed file (full current content embedded):"
SKILLS_INTRO = "Skills invoked before context was compacted (their instructions still apply):"
IMAGES_INTRO = (
    "Recent visual snapshots preserved from before context was compacted (most recent last). "
    "They follow in this order:"
)
_CONTROL = re.compile(r"[\r\n\t]")
_BACKTICKS = re.compile(r"`+")


def recent_file_paths(history: list[Message], root: Path, limit: int = MAX_FILES, *, skip_calls: frozenset[str] = frozenset()) -> list[Path]:
    """Newest first: paths of successful file-tool calls, inside the workspace, de-duplicated.

    ``skip_calls``: calls whose file is not re-attached (the person dropped or pinned their result)."""
    if limit <= 0:
        return []
    failed = {m.tool_call_id for m in history if m.role == "tool" and m.is_error} | skip_calls
    real_root = os.path.realpath(root)
    seen: list[Path] = []
    for message in reversed(history):
        if message.role != "assistant":
            continue
        for call in reversed(message.tool_calls):
            if call.name not in FILE_TOOLS or call.id in failed:
                continue
            try:
                args = json.loads(call.arguments or "{}")
            except json.JSONDecodeError:
                continue
            raw = args.get("path") or args.get("file_path") if isinstance(args, dict) else None
            if not isinstance(raw, str) or not raw:
                continue
            path = Path(raw) if os.path.isabs(raw) else Path(root) / raw
            real = os.path.realpath(path)
            if real != real_root and not real.startswith(real_root + os.sep):
                continue
            if Path(real) not in seen:
                seen.append(Path(real))
            if len(seen) >= limit:
                return seen
    return seen


def _looks_binary(data: bytes) -> bool:
    """NUL bytes, an image's signature, or a mostly unprintable head: not a file to embed as text."""
    head = data[:512]
    if not head:
        return False
    if b"\x00" in data[:8192] or sniff_image_mime(head[:16]) is not None:
        return True
    printable = sum(1 for b in head if 0x20 <= b <= 0x7E or b in (9, 10, 13) or b >= 0x80)
    return (len(head) - printable) / len(head) > 0.3


def read_adaptive(path: Path, max_tokens: int = MAX_TOKENS_PER_FILE) -> tuple[str, str]:
    """(``embed`` | ``reference`` | ``missing`` | ``binary``, content)."""
    max_chars = 4 * max_tokens
    try:
        if path.stat().st_size > max_chars * 4:
            return "reference", ""
        data = path.read_bytes()
    except OSError:
        return "missing", ""
    if _looks_binary(data):
        return "binary", ""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:  # bytes >= 0x80 pass the printable test; only UTF-8 text is embedded
        return "binary", ""
    if len(text) > max_chars:
        return "reference", ""
    return "embed", text


def _fence(content: str) -> str:
    longest = max((len(run) for run in _BACKTICKS.findall(content)), default=0)
    return "`" * max(3, longest + 1)


@dataclass
class Attachments:
    """What goes back into the conversation after a summary: recent files (whole or by name), skills, images."""

    embeds: list[str] = field(default_factory=list)
    references: list[str] = field(default_factory=list)
    skills: list[str] = field(default_factory=list)
    images: list[ImagePart] = field(default_factory=list)
    image_lines: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.embeds or self.references or self.skills or self.images)

    def text(self) -> str:
        blocks: list[str] = []
        if self.references:
            blocks.append(REFERENCE_INTRO + "\n" + "\n".join(f"- {_CONTROL.sub('', r)}" for r in self.references))
        blocks.extend(self.embeds)
        if self.skills:
            blocks.append(SKILLS_INTRO + "\n\n" + "\n\n".join(self.skills))
        if self.images:
            blocks.append(IMAGES_INTRO + "\n" + "\n".join(self.image_lines))
        return "\n\n".join(blocks)


def recent_images(messages: list[Message], limit: int = MAX_IMAGES) -> list[tuple[ImagePart, str]]:
    """The last ``limit`` images with a line saying where each came from, oldest first."""
    found: list[tuple[ImagePart, str]] = []
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        for image in reversed(message.images):
            if len(found) >= limit:
                return found[::-1]
            found.append((image, f"- turn {index + 1}: {_image_origin(messages, message)}"))
    return found[::-1]


def _image_origin(messages: list[Message], message: Message) -> str:
    if message.role != "tool":
        return "user-provided image"
    for earlier in messages:
        for call in earlier.tool_calls:
            if call.id == message.tool_call_id:
                return f"{call.name} args={_CONTROL.sub(' ', call.arguments)}"
    return message.name or "tool"


def collect_attachments(
    history: list[Message],
    root: Path,
    *,
    skill_bodies: list[str] | None = None,
    image_source: list[Message] | None = None,
    skip_calls: frozenset[str] = frozenset(),
) -> Attachments:
    """Files and skills from ``history``; images from ``image_source`` (the summarized part: the kept tail has its own)."""
    attachments = Attachments(skills=list(skill_bodies or []))
    for image, line in recent_images(image_source or []):
        attachments.images.append(image)
        attachments.image_lines.append(line)
    budget = TOKEN_BUDGET * 4
    for path in recent_file_paths(history, root, skip_calls=skip_calls):
        shown = os.path.relpath(path, root)
        kind, content = read_adaptive(path)
        if kind == "embed" and len(content) <= budget:
            fence = _fence(content)
            attachments.embeds.append(f"{EMBED_INTRO}\n\n## {shown}\n\n{fence}\n{content}\n{fence}")
            budget -= len(content)
        elif kind in ("embed", "reference"):
            attachments.references.append(shown)
    return attachments
