"""The keymap setting checked before it is applied: unknown ids, typing keys, clashes and who wins."""

from __future__ import annotations

from app.tui.keys import plan_keymap


def test_a_remap_onto_another_key_names_the_loser() -> None:
    plan = plan_keymap({"help": "f2"})
    assert plan.keymap == {"help": "f2", "context_map": ""}
    assert plan.problems == [
        "keymap: f2 now runs help; context_map (Context map) has no key left — give it one with keymap: {context_map: ...}"
    ]


def test_moving_the_loser_too_is_no_clash() -> None:
    plan = plan_keymap({"help": "f2", "context_map": "f9"})
    assert plan.keymap == {"help": "f2", "context_map": "f9"}
    assert plan.problems == []


def test_a_key_the_prompt_uses_itself_becomes_a_priority_binding() -> None:
    plan = plan_keymap({"help": "f6"})
    assert plan.priority_ids == {"help"}
    assert plan.problems == ["keymap: f6 is also the prompt's 'Select line'; help takes it everywhere"]


def test_keys_that_type_are_refused_for_global_actions_but_not_in_panels() -> None:
    plan = plan_keymap({"help": "h", "sessions": "space", "memory_down": "n"})
    assert "help" not in plan.keymap and "sessions" not in plan.keymap
    assert plan.keymap["memory_down"] == "n"
    assert plan.problems[:2] == [
        "keymap: help cannot take 'h' (it would stop that key from typing); it keeps f1",
        "keymap: sessions cannot take 'space' (it would stop that key from typing); it keeps ctrl+r",
    ]


def test_unknown_ids_are_named() -> None:
    plan = plan_keymap({"hepl": "f1"})
    assert plan.keymap == {} and plan.problems == ["keymap: unknown key id 'hepl' (F1 lists the ids); ignored"]


def test_clashes_are_per_screen_not_across_screens() -> None:
    # "d" deletes in the session picker and forgets in the memory panel: different screens, no clash.
    plan = plan_keymap({"picker_delete": "x"})
    assert plan.problems == []
