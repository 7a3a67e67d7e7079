"""The <available_skills> reminder: exact entry format, byte stability and deltas."""

from __future__ import annotations

from pathlib import Path

from app.context.skills.listing import (
    MAX_DESCRIPTION_CHARS,
    delta_reminder,
    listing_entries,
    skill_entry,
    snapshot_reminder,
)
from app.context.skills.model import Skill, SkillLevel


def skill(
    name: str, description: str = "Does things.", when: str | None = None, level: SkillLevel = SkillLevel.USER
) -> Skill:
    return Skill(name=name, description=description, level=level, path=Path(f"/s/{name}/SKILL.md"), when_to_use=when)


def test_entry_format() -> None:
    assert skill_entry(skill("review", "Review a diff.", "Before a commit.", SkillLevel.PROJECT)) == (
        "<skill>\n<name>\nreview\n</name>\n<description>\n"
        "Review a diff. — Before a commit. (project)\n"
        "</description>\n<location>\nproject\n</location>\n</skill>"
    )
    assert "\nReview a diff. (bundled)\n" in skill_entry(skill("review", "Review a diff.", level=SkillLevel.BUNDLED))


def test_entry_text_is_escaped() -> None:
    entry = skill_entry(skill("x", "Use <b> & </description> tags", "a<b"))
    assert "Use &lt;b&gt; &amp; &lt;/description&gt; tags — a&lt;b (user)" in entry
    assert entry.count("</description>") == 1


def test_quotes_are_escaped_as_qwen_code_does() -> None:
    entry = skill_entry(skill("x", "Don't say \"done\" early", ""))
    assert "Don&apos;t say &quot;done&quot; early (user)" in entry


def test_overlong_descriptions_are_capped() -> None:
    entry = skill_entry(skill("x", "d" * 5000, "w" * 100))
    line = entry.split("\n")[5]
    assert line.endswith("… (user)")
    assert len(line) == MAX_DESCRIPTION_CHARS + len(" (user)")


def test_snapshot_is_sorted_and_byte_stable() -> None:
    skills = [skill("zeta"), skill("alpha", when="Sometimes."), skill("mid")]
    text = snapshot_reminder(skills)
    assert text == snapshot_reminder(list(reversed(skills)))
    assert text.startswith("<system-reminder>\n")
    assert text.endswith("\n</available_skills>\n</system-reminder>")
    assert text.index("\nalpha\n") < text.index("\nmid\n") < text.index("\nzeta\n")
    body = text.split("<available_skills>\n", 1)[1].rsplit("\n</available_skills>", 1)[0]
    assert body == "\n".join(skill_entry(s) for s in sorted(skills, key=lambda s: s.name))


def test_nothing_available_means_no_reminder() -> None:
    assert snapshot_reminder([]) == ""


def test_delta_lists_added_and_updated_entries_and_names_removed_ones() -> None:
    before = listing_entries([skill("keep"), skill("edit", "old"), skill("gone")])
    after = listing_entries([skill("keep"), skill("edit", "new"), skill("fresh")])
    text = delta_reminder(before, after)
    assert text.startswith("<system-reminder>\nThe skills available to the skill tool have changed.\n")
    assert skill_entry(skill("fresh")) in text
    assert skill_entry(skill("edit", "new")) in text
    assert "\nkeep\n" not in text
    assert text.endswith("No longer available; do not invoke: gone\n</system-reminder>")
    assert text.index("\nedit\n") < text.index("\nfresh\n")


def test_delta_of_an_unchanged_set_is_empty_and_deltas_are_stable() -> None:
    entries = listing_entries([skill("a"), skill("b")])
    assert delta_reminder(entries, dict(reversed(list(entries.items())))) == ""
    before, after = listing_entries([skill("a")]), listing_entries([skill("b"), skill("c")])
    assert delta_reminder(before, after) == delta_reminder(dict(before), listing_entries([skill("c"), skill("b")]))


def test_only_removed() -> None:
    text = delta_reminder(listing_entries([skill("a"), skill("b")]), {})
    assert "<available_skills>" not in text
    assert "No longer available; do not invoke: a, b" in text
