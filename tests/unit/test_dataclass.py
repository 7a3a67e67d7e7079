"""app/dataclass.py behaves as the standard decorator does: each rule checked against ``dataclasses.dataclass``."""

from __future__ import annotations

import dataclasses
from dataclasses import field

import pytest

from app import dataclass as lean


def _pair(body: str, decorator: str = "@dc"):  # type: ignore[no-untyped-def]
    """The same class source, made once by each decorator."""
    made = []
    for dc in (dataclasses.dataclass, lean.dataclass):
        namespace: dict = {"dc": dc, "field": field}
        exec(f"{decorator}\nclass Thing:\n" + body, namespace)  # noqa: S102 - the test's own source
        made.append(namespace["Thing"])
    return made


PLAIN = """
    name: str
    size: int = 0
    tags: list = field(default_factory=list)
    note: str = field(default="", compare=False, repr=False)
"""


@pytest.mark.parametrize(
    ("left", "right"),
    [
        (("a", 1), ("a", 1)),
        (("a", 1), ("a", 2)),
        (("a", 1, ["x"]), ("a", 1, ["x"])),
        (("a", 1, [], "one note"), ("a", 1, [], "another note")),  # compare=False: still equal
    ],
)
def test_equality_is_the_same(left: tuple, right: tuple) -> None:
    standard, ours = _pair(PLAIN)
    assert (ours(*left) == ours(*right)) == (standard(*left) == standard(*right))
    assert (ours(*left) != ours(*right)) == (standard(*left) != standard(*right))


def test_another_class_is_not_equal_even_with_the_same_fields() -> None:
    _, ours = _pair(PLAIN)
    _, other = _pair(PLAIN)
    assert ours("a") != other("a")
    assert ours("a").__eq__(other("a")) is NotImplemented
    assert ours("a").__eq__("a") is NotImplemented


def test_the_representation_is_the_same() -> None:
    standard, ours = _pair(PLAIN)
    assert repr(ours("a", 2, ["t"], "hidden")) == repr(standard("a", 2, ["t"], "hidden")).replace(standard.__qualname__, ours.__qualname__)
    assert "hidden" not in repr(ours("a", 2, ["t"], "hidden"))


def test_a_class_that_holds_itself_is_shown_without_recursing() -> None:
    standard, ours = _pair("    child: object = None\n")
    a, b = standard(), ours()
    a.child, b.child = a, b
    assert repr(b) == repr(a)


def test_a_mutable_class_is_unhashable_and_a_frozen_one_hashes_its_compared_fields() -> None:
    standard, ours = _pair(PLAIN)
    for cls in (standard, ours):
        with pytest.raises(TypeError):
            hash(cls("a"))
    standard, ours = _pair(PLAIN.replace("list = field(default_factory=list)", "tuple = ()"), "@dc(frozen=True)")
    assert hash(ours("a", 1)) == hash(ours("a", 1, (), "other note"))
    assert {ours("a", 1), ours("a", 1), ours("b", 1)} == {ours("a", 1), ours("b", 1)}
    with pytest.raises(dataclasses.FrozenInstanceError):
        ours("a").name = "b"  # type: ignore[misc]


def test_a_field_can_be_left_out_of_the_hash_alone() -> None:
    _, ours = _pair("    a: int\n    b: int = field(default=0, hash=False)\n", "@dc(frozen=True)")
    assert hash(ours(1, 2)) == hash(ours(1, 3))
    assert ours(1, 2) != ours(1, 3)


def test_methods_a_class_writes_itself_are_kept() -> None:
    body = PLAIN + "    def __eq__(self, other):\n        return 'mine'\n    def __repr__(self):\n        return 'my repr'\n    def __hash__(self):\n        return 7\n"
    standard, ours = _pair(body)
    for cls in (standard, ours):
        assert (cls("a") == cls("b")) == "mine"
        assert repr(cls("a")) == "my repr"
        assert hash(cls("a")) == 7


def test_eq_false_and_repr_false_are_the_standard_meanings() -> None:
    standard, ours = _pair(PLAIN, "@dc(eq=False, repr=False)")
    for cls in (standard, ours):
        first, second = cls("a"), cls("a")
        assert first != second and first == first  # identity
        assert hash(first) != hash(second)
        assert repr(first).startswith("<")


def test_a_subclass_compares_its_own_fields_too() -> None:
    _, base = _pair(PLAIN)
    child = lean.dataclass(type("Child", (base,), {"__annotations__": {"extra": "int"}, "extra": 0}))
    assert child("a", extra=1) != child("a", extra=2)
    assert child("a", extra=1) == child("a", extra=1)
    assert child("a") != base("a")
    assert "extra=1" in repr(child("a", extra=1))


def test_replace_fields_and_match_args_still_work() -> None:
    _, ours = _pair(PLAIN, "@dc(frozen=True)")
    thing = ours("a", 1)
    assert dataclasses.replace(thing, size=2) == ours("a", 2)
    assert [f.name for f in dataclasses.fields(ours)] == ["name", "size", "tags", "note"]
    assert ours.__match_args__ == ("name", "size", "tags", "note")
    match thing:
        case ours(name, size):  # type: ignore[misc]
            assert (name, size) == ("a", 1)


def test_order_goes_to_the_standard_decorator() -> None:
    _, ours = _pair("    a: int\n", "@dc(order=True)")
    assert ours(1) < ours(2)
