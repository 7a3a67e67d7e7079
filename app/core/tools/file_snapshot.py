"""What an edit or write_file replaced, kept so a rewind can put it back.

For each successful edit/write the record gets: the real path written, whether the
file existed, its bytes before (up to ``SNAPSHOT_CAP_BYTES``) and hashes of the bytes
before and of what the tool wrote. A rewind compares the file on disk with the hash
of what the tool wrote to see whether someone changed it since. A file over the cap
is hashed but not kept, and a rewind says it cannot restore it.
"""

from __future__ import annotations

import base64
import hashlib
from app.dataclass import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.core.tools.base import ToolContext

# A session record holds what a file was before each change: a megabyte per change keeps a
# long session of edits to ordinary source files whole and one rewritten data file from
# growing the record without bound.
SNAPSHOT_CAP_BYTES = 1_000_000


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class FileChange:
    """One file as an edit/write tool found and left it."""

    path: str  # the real path written (a symlink's target: that is the file that changed)
    existed: bool
    before: bytes | None  # None when the file did not exist or was over the cap
    before_sha256: str | None
    before_size: int
    after_sha256: str
    after_size: int

    @property
    def over_cap(self) -> bool:
        return self.existed and self.before is None

    def to_payload(self) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "path": self.path,
            "existed": self.existed,
            "beforeSha256": self.before_sha256,
            "beforeSize": self.before_size,
            "afterSha256": self.after_sha256,
            "afterSize": self.after_size,
        }
        if self.before is not None:
            try:
                payload["beforeText"] = self.before.decode("utf-8")
            except UnicodeDecodeError:
                payload["beforeBase64"] = base64.b64encode(self.before).decode("ascii")
        elif self.existed:
            payload["overCap"] = SNAPSHOT_CAP_BYTES
        return payload

    @classmethod
    def from_payload(cls, data: dict[str, Any]) -> FileChange:
        """Raises ValueError naming what is wrong (a record written by hand, or damaged)."""
        path, existed, after = data.get("path"), data.get("existed"), data.get("afterSha256")
        if not isinstance(path, str) or not path or not isinstance(existed, bool) or not isinstance(after, str):
            raise ValueError("a file change needs path, existed and afterSha256")
        before: bytes | None = None
        if isinstance(data.get("beforeText"), str):
            before = data["beforeText"].encode("utf-8")
        elif isinstance(data.get("beforeBase64"), str):
            try:
                before = base64.b64decode(data["beforeBase64"], validate=True)
            except ValueError:
                raise ValueError("beforeBase64 is not base64") from None
        before_sha = data.get("beforeSha256")
        if before is not None and before_sha != sha256(before):
            raise ValueError("the kept content does not match its hash")
        return cls(
            path=path,
            existed=existed,
            before=before if existed else None,
            before_sha256=before_sha if isinstance(before_sha, str) else None,
            before_size=int(data.get("beforeSize") or 0),
            after_sha256=after,
            after_size=int(data.get("afterSize") or 0),
        )


@dataclass
class Before:
    """A file as it was just before edit or write_file wrote it (its bytes only when under the cap)."""

    path: Path
    existed: bool
    data: bytes | None
    digest: str | None
    size: int


def capture_before(ctx: ToolContext, path: Path) -> Before:
    """The file as it is now, before the tool writes it."""
    real = ctx.fs.realpath(path)
    if not ctx.fs.exists(real):
        return Before(real, False, None, None, 0)
    size = ctx.fs.stat_size(real)
    data = ctx.fs.read_bytes(real)
    return Before(real, True, data if size <= SNAPSHOT_CAP_BYTES else None, sha256(data), size)


def file_change(before: Before, ctx: ToolContext) -> FileChange:
    """After the write: what the tool left on disk, read back (the bytes the next rewind compares)."""
    written = ctx.fs.read_bytes(before.path)
    return FileChange(
        path=str(before.path),
        existed=before.existed,
        before=before.data,
        before_sha256=before.digest,
        before_size=before.size,
        after_sha256=sha256(written),
        after_size=len(written),
    )
