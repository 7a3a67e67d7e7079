"""Hooks' last results kept per project: written atomically, and a damaged file means "not run yet"."""

from __future__ import annotations

from pathlib import Path

from app.hooks.last_runs import load_last_runs, save_last_run


def test_results_are_kept_per_hook_and_the_newest_wins(tmp_path: Path) -> None:
    path = tmp_path / "state" / "hooks-last-runs.json"
    save_last_run(path, "user:PreToolUse:0", "ok in 0.10 s (no answer)", "s1")
    save_last_run(path, "user:Stop:0", "failed: exit code 3", "s1")
    save_last_run(path, "user:PreToolUse:0", "failed: timed out after 5 s", "s2")
    runs = load_last_runs(path)
    assert runs["user:PreToolUse:0"].summary == "failed: timed out after 5 s" and runs["user:PreToolUse:0"].session_id == "s2"
    assert runs["user:Stop:0"].summary == "failed: exit code 3"
    assert not list(path.parent.glob(".*tmp*")), "no temporary file left behind"


def test_a_missing_or_damaged_file_is_no_history(tmp_path: Path) -> None:
    assert load_last_runs(None) == {} and load_last_runs(tmp_path / "absent.json") == {}
    for text in ("{not json", "[1, 2]", '{"k": {"summary": 3, "at": "x"}}'):
        (tmp_path / "runs.json").write_text(text, encoding="utf-8")
        assert load_last_runs(tmp_path / "runs.json") == {}
