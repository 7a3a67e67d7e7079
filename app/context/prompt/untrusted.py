"""Text a repository wrote (commit subjects, file names) made safe to quote to the model.

Whoever wrote the repository chose these words, so they are data, never instructions:
terminal escapes and invisible characters go, anything that looks like a credential is
masked (the memory package's secret scanner decides), and markup that could close the
program's own structure (a code fence, ``</system-reminder>``, a fake ``--- End of
Context from:`` line) is neutralised. The caller then puts it in a fence that says so.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from app.context.memory.secrets import describe_findings, scan

# CSI (ESC [ … final), OSC (ESC ] … BEL or ESC \), and two-character escapes.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]|\x9b[0-?]*[ -/]*[@-~]")
_TAG = re.compile(r"<(/?[A-Za-z][\w:.-]*)")
_FENCE = re.compile(r"`{3,}|~{3,}")
_CONTEXT_MARKER = re.compile(r"---(?=\s*(?:End of )?Context from:)")
MASK = "[masked credential: {label}]"


@dataclass
class CleanText:
    text: str
    # Labels of the credentials masked (e.g. "GitHub PAT"), for telling the person once.
    secrets: list[str] = field(default_factory=list)


def clean_untrusted(text: str) -> CleanText:
    """One line of repository text, safe to put inside an untrusted-data fence."""
    text = _ANSI.sub("", text)
    text = "".join(" " if ch == "\t" else ch for ch in text if _visible(ch))
    secrets: list[str] = []
    if scan(text):
        words = []
        for word in text.split(" "):
            found = scan(word)
            if found:
                label = describe_findings(found)
                secrets.append(label)
                word = MASK.format(label=label)
            words.append(word)
        text = " ".join(words)
        if scan(text):  # a credential no single word holds: the whole line goes
            label = describe_findings(scan(text))
            secrets.append(label)
            text = MASK.format(label=label)
    text = _FENCE.sub(lambda m: "'" * len(m.group(0)), text)
    text = _TAG.sub(r"&lt;\1", text)
    text = _CONTEXT_MARKER.sub("- - -", text)
    return CleanText(text, secrets)


def _visible(ch: str) -> bool:
    """Control (Cc), format (Cf: zero-width, bidi overrides), separators of lines and paragraphs, unassigned."""
    if ch == "\t":
        return True
    return unicodedata.category(ch) not in ("Cc", "Cf", "Zl", "Zp", "Co", "Cn", "Cs")
