"""The ``<available_skills>`` reminder the model reads: a snapshot at session start, deltas after.

The list lives in a ``<system-reminder>`` in the messages, never in the skill
tool's description: the tools block heads the prompt-cache prefix, and a list
there would invalidate the whole cache each time a skill appears.

Everything here is a pure function of the skills passed in, sorted by name, so
the same set always gives byte-identical text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from app.context.skills.model import Skill

# Description plus when_to_use, per skill. Qwen Code sets no cap; one runaway description
# should not cost every request thousands of tokens, so we use Claude Code's figure.
MAX_DESCRIPTION_CHARS = 1_536

_SNAPSHOT_INTRO = (
    "The skill tool can load the skills listed below. Each holds instructions for one kind of task: "
    "when the task at hand matches a skill's description, invoke the skill tool with that name before you start."
)
_DELTA_INTRO = "The skills available to the skill tool have changed."
_ADDED_INTRO = "Now available (new or updated):"
_REMOVED_INTRO = "No longer available; do not invoke: "


def skill_entry(skill: Skill) -> str:
    """One ``<skill>`` element, its tags and values on lines of their own."""
    level = skill.level.value
    # A multi-line (``|``) YAML description keeps its first line only, as in Qwen Code 0.24.4's listing.
    description = skill.description.split("\n", 1)[0].strip()
    about = description if not skill.when_to_use else f"{description} — {skill.when_to_use}"
    lines = [
        "<skill>",
        "<name>",
        _escape(skill.name),
        "</name>",
        "<description>",
        f"{_escape(_cap(about))} ({level})",
        "</description>",
        "<location>",
        level,
        "</location>",
        "</skill>",
    ]
    return "\n".join(lines)


def listing_entries(skills: Iterable[Skill]) -> dict[str, str]:
    """Name -> rendered entry, in name order; what a delta compares."""
    return {skill.name: skill_entry(skill) for skill in sorted(skills, key=lambda skill: skill.name)}


def snapshot_reminder(skills: Iterable[Skill]) -> str:
    """The full list; empty text when no skill is available (nothing worth a reminder)."""
    return snapshot_from_entries(listing_entries(skills))


def snapshot_from_entries(entries: Mapping[str, str]) -> str:
    if not entries:
        return ""
    return _reminder([_SNAPSHOT_INTRO, _block(entries[name] for name in sorted(entries))])


def delta_reminder(before: Mapping[str, str], after: Mapping[str, str]) -> str:
    """What changed from ``before`` to ``after`` (both from :func:`listing_entries`); "" when nothing did.

    A skill whose entry changed (an edited description) is listed again in full.
    """
    added = [name for name in sorted(after) if before.get(name) != after[name]]
    removed = [name for name in sorted(before) if name not in after]
    if not added and not removed:
        return ""
    parts = [_DELTA_INTRO]
    if added:
        parts += [_ADDED_INTRO, _block(after[name] for name in added)]
    if removed:
        parts.append(_REMOVED_INTRO + ", ".join(_escape(name) for name in removed))
    return _reminder(parts)


def _block(entries: Iterable[str]) -> str:
    return "\n".join(["<available_skills>", *entries, "</available_skills>"])


def _reminder(parts: list[str]) -> str:
    return "\n".join(["<system-reminder>", *parts, "</system-reminder>"])


def _cap(text: str) -> str:
    return text if len(text) <= MAX_DESCRIPTION_CHARS else text[: MAX_DESCRIPTION_CHARS - 1].rstrip() + "…"


def _escape(text: str) -> str:
    # As Qwen Code 0.24.4 escapes it: what could open or close a tag, and both quotes.
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&apos;").replace('"', "&quot;")
    )
