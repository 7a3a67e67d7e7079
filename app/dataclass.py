"""``@dataclass`` as the standard library makes it, with ``__eq__``, ``__repr__`` and ``__hash__`` shared.

Why: the standard decorator writes out and compiles the source of ``__init__``, ``__repr__`` and
``__eq__`` for every class, and the compiling is most of the cost of a class. Measured on Python 3.11
with ``valgrind --tool=callgrind`` (instruction counts, which do not move with the machine's load):
a five-field dataclass with a docstring costs 2.68 M instructions to create, 1.77 M without the
generated ``__eq__`` and ``__repr__``. A headless turn creates about 150 of them before it sends its
request, so the two generated methods were about 12 % of everything the turn does.

Here only ``__init__`` (and ``__match_args__`` and the rest) comes from the standard decorator; the
comparison, the representation and, for a frozen class, the hash are three functions shared by
every class, which read each class's fields once (``dataclasses.fields``) and keep an
``operator.attrgetter`` of them. What they do is what the generated methods do: ``==`` compares the
fields with ``compare=True`` between objects of exactly the same class (anything else is
``NotImplemented``); the representation lists the fields with ``repr=True`` and guards against
recursion; a frozen class hashes its compared fields (``hash=`` respected) and a mutable one is
unhashable. A class that writes its own ``__eq__``, ``__repr__`` or ``__hash__`` keeps it, and
``eq=False`` / ``repr=False`` / ``order=True`` go to the standard decorator as they are.
``tests/unit/test_dataclass.py`` checks each rule against the standard decorator.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable
from reprlib import recursive_repr
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T")

_compared: dict[type, Callable[[Any], Any]] = {}
_hashed: dict[type, Callable[[Any], Any]] = {}
_shown: dict[type, tuple[str, ...]] = {}


def _getter(names: list[str]) -> Callable[[Any], Any]:
    if not names:
        return lambda obj: ()
    return operator.attrgetter(*names)


def _key(cls: type) -> Callable[[Any], Any]:
    key = _compared.get(cls)
    if key is None:
        key = _compared[cls] = _getter([f.name for f in dataclasses.fields(cls) if f.compare])
    return key


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is not self.__class__:
        return NotImplemented
    key = _key(self.__class__)
    return key(self) == key(other)


def _hash(self: Any) -> int:
    cls = self.__class__
    key = _hashed.get(cls)
    if key is None:
        names = [f.name for f in dataclasses.fields(cls) if (f.compare if f.hash is None else f.hash)]
        key = _hashed[cls] = _getter(names)
    value = key(self)
    return hash(value if isinstance(value, tuple) else (value,))


@recursive_repr()
def _repr(self: Any) -> str:
    cls = self.__class__
    names = _shown.get(cls)
    if names is None:
        names = _shown[cls] = tuple(f.name for f in dataclasses.fields(cls) if f.repr)
    return f"{cls.__qualname__}({', '.join(f'{name}={getattr(self, name)!r}' for name in names)})"


@overload
def dataclass(cls: type[T], /) -> type[T]: ...


@overload
def dataclass(*, frozen: bool = False, repr: bool = True, eq: bool = True, order: bool = False) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def dataclass(cls: type[T] | None = None, /, **options: Any) -> Any:
    """``dataclasses.dataclass``, same arguments and same behaviour, sharing the three methods above."""

    def wrap(cls: type[T]) -> type[T]:
        if options.get("order") or options.get("unsafe_hash"):
            return dataclasses.dataclass(cls, **options)  # rare: the standard decorator does all of it
        eq = options.pop("eq", True)
        show = options.pop("repr", True)
        own = cls.__dict__
        explicit_hash = "__hash__" in own and not (own["__hash__"] is None and "__eq__" in own)
        made = dataclasses.dataclass(cls, eq=False, repr=False, **options)
        if eq:
            if "__eq__" not in own:
                made.__eq__ = _eq  # type: ignore[method-assign,assignment]
            if not explicit_hash:
                made.__hash__ = _hash if options.get("frozen") else None  # type: ignore[method-assign,assignment]
        if show and "__repr__" not in own:
            made.__repr__ = _repr  # type: ignore[method-assign,assignment]
        return made

    return wrap if cls is None else wrap(cls)
