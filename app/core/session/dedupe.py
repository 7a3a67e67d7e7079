"""Storing a repeated tool result once per session file.

Agents read the same file again and again; each read used to put the whole text
into the record once more, which is how session files grow to 100 MB. A tool
result whose text an earlier record already holds is written as a reference to
that record (``contentRef``) instead, and resuming puts the text back.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a resumed session's texts (lazy_text.py imports orjson): read only when resuming
    from app.core.session.lazy_text import SessionFileText

# Smaller results are not worth a lookup: the reference would save little.
DEDUPE_MIN_BYTES = 2048
MISSING_CONTENT_PLACEHOLDER = (
    "[This tool result repeated an earlier one, which the session record no longer holds readably; "
    "its text is lost. Run the tool again if it is needed.]"
)


def worth_deduplicating(text: str) -> bool:
    """At least DEDUPE_MIN_BYTES of UTF-8, without encoding text that is clearly shorter or longer."""
    if len(text) >= DEDUPE_MIN_BYTES:
        return True
    if len(text) * 4 < DEDUPE_MIN_BYTES:  # even 4-byte characters would not reach it
        return False
    return len(text.encode("utf-8", "surrogatepass")) >= DEDUPE_MIN_BYTES


def content_key(text: str) -> str:
    # A cryptographic digest: a collision would silently put the wrong text back on resume.
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=20).hexdigest()


class ContentIndex:
    """Which record first held each large tool result text (digests only, never the texts).

    Texts taken over from a resumed session are digested when the index is first asked, not when
    they are handed over: for a 500 MB record that is 12,000 texts and about 0.3 s of hashing, which
    then happens at the first tool result written, not between choosing the session and seeing it.
    """

    def __init__(self) -> None:
        self._holders: dict[str, str] = {}
        self._pending: list[tuple[str, str]] = []

    def __len__(self) -> int:
        self._settle()
        return len(self._holders)

    def holder(self, key: str) -> str | None:
        self._settle()
        return self._holders.get(key)

    def add(self, key: str, record_uuid: str) -> None:
        self._settle()
        self._holders.setdefault(key, record_uuid)

    def add_later(self, texts: dict[str, str | SessionFileText]) -> None:
        """``texts`` by the uuid of the record holding each, in file order, to be digested on first use
        (a text still in the session file is read then)."""
        self._pending.extend(texts.items())

    def _settle(self) -> None:
        if self._pending:
            from app.core.session.lazy_text import as_text

            pending, self._pending = self._pending, []
            for record_uuid, text in pending:
                self._holders.setdefault(content_key(as_text(text)), record_uuid)
