"""Images in the conversation: what one is, how it is recognised, what stands in for it.

An image enters the history when ``read_file`` reads one for a model that takes images.
It weighs a fixed number of tokens (the spec's estimate; servers count differently per
size), is sent as a ``data:`` URL, and is replaced by ``[image: <mime>]`` wherever only
text may go (the summarizer's input, cleared tool results).
"""

from __future__ import annotations

import base64
import re
from app.dataclass import dataclass
from typing import Any

IMAGE_TOKEN_ESTIMATE = 1600
# Larger files are described, not sent: servers reject big payloads (20 MB is a common cap, and
# base64 adds a third).
MAX_IMAGE_BYTES = 5 * 1024 * 1024
DEFAULT_MIME = "application/octet-stream"
_MIME_BREAKS = re.compile(r"[\r\n\t]+")


@dataclass(frozen=True)
class ImagePart:
    """One image in the conversation: its bytes as base64 and its MIME type."""

    mime: str
    data: str  # base64
    source: str = ""  # what produced it, for people: "read_file logo.png"

    @classmethod
    def from_bytes(cls, raw: bytes, mime: str, source: str = "") -> ImagePart:
        return cls(mime=mime, data=base64.b64encode(raw).decode("ascii"), source=source)

    @property
    def size(self) -> int:
        """Bytes of the image itself (not of its base64 text)."""
        return len(self.data) * 3 // 4 - self.data[-2:].count("=")

    def data_url(self) -> str:
        return f"data:{self.mime};base64,{self.data}"

    def placeholder(self) -> str:
        return f"[image: {sanitize_mime(self.mime)}]"

    def to_dict(self) -> dict[str, str]:
        out = {"mime": self.mime, "data": self.data}
        if self.source:
            out["source"] = self.source
        return out

    @classmethod
    def from_dict(cls, data: Any) -> ImagePart | None:
        """The image a record holds, or None for an entry that is not one."""
        if not isinstance(data, dict):
            return None
        mime, payload = data.get("mime"), data.get("data")
        if not isinstance(mime, str) or not isinstance(payload, str) or not payload:
            return None
        source = data.get("source")
        return cls(mime=mime, data=payload, source=source if isinstance(source, str) else "")


def sniff_image_mime(head: bytes) -> str | None:
    """The image type the first bytes of a file announce, or None when they announce none we send."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(head) >= 12 and head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def sanitize_mime(mime: str) -> str:
    """A MIME type safe to put in a bracketed placeholder (the spec's rule)."""
    cleaned = _MIME_BREAKS.sub(" ", mime or "").replace("[", "").replace("]", "").strip()[:128]
    return cleaned or DEFAULT_MIME
