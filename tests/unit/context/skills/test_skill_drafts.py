"""Drafted skills: listing, keeping, discarding, and the drafter's gates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.context.skills.drafts import AUTO_SKILL_THRESHOLD, SOURCE_FILE, SkillDrafter, discard_draft, drafts_dir, keep_draft, list_drafts
from app.core.history import ToolCall

GOOD = "---\nname: fix-tests\ndescription: Run and fix the test suite of this project\n---\n1. make test\n"


def _draft(config: Path, name: str, text: str, session: str = "s1") -> Path:
    folder = drafts_dir(config) / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    (folder / SOURCE_FILE).write_text(json.dumps({"sessionId": session, "createdAt": 1.0}))
    return folder


def test_list_keep_and_discard(tmp_path: Path) -> None:
    config = tmp_path / "config"
    _draft(config, "fix-tests", GOOD)
    _draft(config, "broken", "no frontmatter here")
    drafts = {d.name: d for d in list_drafts(config)}
    assert drafts["fix-tests"].description.startswith("Run and fix") and drafts["fix-tests"].session_id == "s1"
    assert drafts["broken"].problem
    with pytest.raises(ValueError, match="cannot be kept until its SKILL.md is fixed"):
        keep_draft(drafts["broken"], tmp_path / "skills")
    kept = keep_draft(drafts["fix-tests"], tmp_path / "skills")
    assert (kept / "SKILL.md").read_text() == GOOD and not (kept / SOURCE_FILE).exists()
    assert [d.name for d in list_drafts(config)] == ["broken"]
    _draft(config, "fix-tests", GOOD)
    with pytest.raises(ValueError, match="already exists"):
        keep_draft(next(d for d in list_drafts(config) if d.name == "fix-tests"), tmp_path / "skills")
    discard_draft(list_drafts(config)[0])
    assert [d.name for d in list_drafts(config)] == ["fix-tests"]


def test_drafter_gates(tmp_path: Path) -> None:
    skills_dir = (tmp_path / "skills").resolve()
    drafter = SkillDrafter(config_dir=tmp_path, skill_dirs=lambda: [skills_dir], session_id="s", enabled=True, provider=object())  # type: ignore[arg-type]
    assert drafter.gate() == "below_threshold"
    for i in range(AUTO_SKILL_THRESHOLD):
        drafter.tool_ran(ToolCall(f"c{i}", "read_file"), {"path": "a.py"})
    assert drafter.gate() == ""
    drafter.tool_ran(ToolCall("w", "write_file"), {"path": str(skills_dir / "mine" / "SKILL.md")})
    assert drafter.gate() == "skills_modified_in_session"
    assert SkillDrafter(config_dir=tmp_path, skill_dirs=lambda: [], session_id="s", enabled=False).gate() == "disabled"
    drafter.skills_modified, drafter.drafted = False, True
    assert drafter.gate() == "already_drafted"
