"""An index past its limits is never rewritten; memories added after it are still reachable, and the
prompt and the panel say how many are linked only below the loaded head."""

from __future__ import annotations

from pathlib import Path

from app.context.memory.index import index_problems, rebuild_index
from app.context.memory.paths import MemoryScope
from app.context.memory.prompt import memory_prompt
from app.context.memory.index import index_for_prompt, links_below_head
from app.context.memory.recall import plan_from_store
from app.context.memory.scan import clear_scan_cache
from app.context.memory.store import MemoryStore
from tests.unit.memory_support import make_paths, memory_text, put


def _long_hand_written_index(total: int = 230) -> str:
    lines = ["# Project memory", "", "Notes kept by hand.", "", "- [db](feedback/db.md) - the real database"]
    while len(lines) < total:
        lines.append(f"- note {len(lines)}: the build cache lives in /var/cache/ci, clear it on Mondays")
    return "\n".join(lines) + "\n"


def test_new_memories_land_below_the_head_but_are_named_and_recalled(tmp_path: Path) -> None:
    clear_scan_cache()
    paths = make_paths(tmp_path)
    put(paths.project_root, "feedback/db.md", memory_text("db", "real database", "feedback", "No mocks."))
    index = paths.index_file(MemoryScope.PROJECT)
    index.parent.mkdir(parents=True, exist_ok=True)
    original = _long_hand_written_index()
    index.write_bytes(original.encode("utf-8"))
    put(paths.project_root, "project/kestrel.md", memory_text("kestrel queue", "the kestrel queue drains nightly", "project"))
    put(paths.project_root, "user/tabs.md", memory_text("tabs", "prefers tabs over spaces", "user"))
    rebuild_index(paths, MemoryScope.PROJECT)
    text = index.read_text(encoding="utf-8")
    # What the person wrote is untouched, byte for byte; the new links follow it.
    assert text.startswith(original)
    assert text[len(original):] == "- [kestrel queue](project/kestrel.md) \u2014 the kestrel queue drains nightly\n- [tabs](user/tabs.md) \u2014 prefers tabs over spaces\n"
    assert links_below_head(text) == ["project/kestrel.md", "user/tabs.md"]

    prompt = memory_prompt(paths)
    assert "> WARNING: MEMORY.md is 232 lines (limit: 200). Only part of it was loaded." in prompt
    assert "> 2 memories are linked only below the loaded part (project/kestrel.md, user/tabs.md); recall still finds them by their content." in prompt
    assert "kestrel" not in prompt.split("> WARNING")[0]  # the link itself is past the head
    problems = index_problems(paths, MemoryScope.PROJECT)
    assert "2 memories are linked only below the loaded part (project/kestrel.md, user/tabs.md); recall still finds them by their content." in problems

    plan = plan_from_store(MemoryStore(paths), "when does the kestrel queue drain?")
    assert [e.rel_path for e in plan.relevant] == ["project/kestrel.md"]


def test_a_link_repeated_in_the_head_is_not_counted_below_it() -> None:
    head = ["- [db](feedback/db.md) - by hand"] + [f"note {n}" for n in range(205)]
    text = "\n".join(head + ["- [db](feedback/db.md) \u2014 again", "- [x](project/x.md) \u2014 new"])
    assert links_below_head(text) == ["project/x.md"]
    assert "1 memory is linked only below the loaded part (project/x.md)" in index_for_prompt(text)


def test_many_memories_below_the_head_are_counted_and_the_first_few_named() -> None:
    text = "\n".join([f"note {n}" for n in range(200)] + [f"- [m{n}](project/m{n}.md) \u2014 d" for n in range(5)])
    assert "5 memories are linked only below the loaded part (project/m0.md, project/m1.md, project/m2.md and 2 more)" in index_for_prompt(text)


def test_an_index_within_its_limits_has_no_note() -> None:
    text = "- [a](project/a.md) \u2014 d\nnote"
    assert links_below_head(text) == [] and index_for_prompt(text) == text
