"""The start-of-session prelude: environment facts as the first exchange of the messages.

It lives in the messages, not the system prompt (as in the spec's request layout),
and is built once per session so the cached prefix of every request stays the same.
"""

from __future__ import annotations

import platform
from datetime import date
from pathlib import Path
from string import Template

from app.context.prompt.base import template
from app.core.history import Message
from app.core.undecodable import escape

# A listing is a hint, not an inventory: a huge directory must not flood the window.
MAX_LISTED = 40


def _listing(cwd: Path) -> str:
    try:
        entries = sorted(cwd.iterdir(), key=lambda p: (not p.is_dir(), p.name.lower()))
    except OSError as exc:
        return f"(cannot list: {exc.strerror})"
    # A name that is not UTF-8 is shown as the tools show it (\xNN per odd byte), never sent raw.
    names = [f"{escape(p.name)}/" if p.is_dir() else escape(p.name) for p in entries if p.name != ".git"]
    shown = names[:MAX_LISTED]
    lines = [f"- {name}" for name in shown]
    if len(names) > MAX_LISTED:
        lines.append(f"- … and {len(names) - MAX_LISTED} more")
    return "\n".join(lines) or "(empty)"


def prelude_text(cwd: Path, root: Path, *, today: date | None = None) -> str:
    return Template(template("prelude")).substitute(
        date=(today or date.today()).isoformat(),
        platform=f"{platform.system()} {platform.release()}",
        cwd=escape(str(cwd)),
        root=escape(str(root)),
        listing=_listing(cwd),
    )


def prelude_messages(environment: str, skills_listing: str = "") -> list[Message]:
    """The first exchange: environment facts (and the skills snapshot) and the model's acknowledgement."""
    text = f"{environment}\n\n{skills_listing}" if skills_listing else environment
    return [Message.user(text), Message(role="assistant", content=template("prelude_reply"))]
