"""Reading a program's options the way getopt_long does, but refusing what it would guess.

Used by the wrapper analysis (where does ``timeout -k 5 10 rm`` put its command?)
and the read-only table (is every option of ``git log -n5 --stat`` known?). Two
differences from getopt_long are deliberate: an abbreviated long option
(``--outp`` for ``--output``, which GNU tools and git accept) is an error, as is
any option not in the spec — a guess here would be a hole.
"""

from __future__ import annotations

from dataclasses import field
from app.dataclass import dataclass


@dataclass(frozen=True)
class OptionSpec:
    """The options a program takes, in getopt_long's terms; any other option is refused."""

    flags: str = ""  # short options without a value: "lah"
    valued: str = ""  # short options that take a value: "n" (-n5, -n 5)
    long_flags: frozenset[str] = frozenset()  # "--stat"
    long_valued: frozenset[str] = frozenset()  # "--max-count" (=VALUE or the next word)
    long_optional: frozenset[str] = frozenset()  # "--color" ([=WHEN]: only with "=")
    numeric: bool = False  # -5 means "-n 5" (head, tail, git log)
    permute: bool = True  # GNU: options may follow operands; False: the first operand ends them


def spec(
    flags: str = "",
    valued: str = "",
    long_flags: str = "",
    long_valued: str = "",
    long_optional: str = "",
    *,
    numeric: bool = False,
    permute: bool = True,
) -> OptionSpec:
    """An OptionSpec from space-separated long option names (written without the dashes)."""
    return OptionSpec(
        flags,
        valued,
        frozenset(f"--{name}" for name in long_flags.split()),
        frozenset(f"--{name}" for name in long_valued.split()),
        frozenset(f"--{name}" for name in long_optional.split()),
        numeric,
        permute,
    )


@dataclass
class ParsedOptions:
    """A program's arguments split into options and operands, or the first word that could not be read."""

    options: list[tuple[str, str | None]] = field(default_factory=list)  # ("-n", "5"), ("--stat", None)
    operands: list[str] = field(default_factory=list)
    rest_at: int = 0  # index in args where the operands start (permute=False)
    error: str | None = None
    offender: str = ""  # the word at fault, as written


def parse_options(args: list[str], option_spec: OptionSpec) -> ParsedOptions:
    out = ParsedOptions()
    index = 0
    while index < len(args) and not out.error:
        arg = args[index]
        if arg == "--":
            out.operands.extend(args[index + 1 :])
            out.rest_at = index + 1
            return out
        if arg.startswith("--"):
            index = _long(args, index, option_spec, out)
        elif arg.startswith("-") and arg != "-":
            index = _short(args, index, option_spec, out)
        elif option_spec.permute:
            out.operands.append(arg)
            index += 1
        else:
            out.operands = args[index:]
            out.rest_at = index
            return out
    out.rest_at = len(args)
    return out


def _long(args: list[str], index: int, option_spec: OptionSpec, out: ParsedOptions) -> int:
    name, eq, value = args[index].partition("=")
    if name in option_spec.long_flags and not eq:
        out.options.append((name, None))
        return index + 1
    if name in option_spec.long_valued:
        if eq:
            out.options.append((name, value))
            return index + 1
        if index + 1 >= len(args):
            out.error, out.offender = f"{name} needs a value", name
            return index + 1
        out.options.append((name, args[index + 1]))
        return index + 2
    if name in option_spec.long_optional:
        out.options.append((name, value if eq else None))
        return index + 1
    out.error, out.offender = f"{args[index]} is not a known option (abbreviations are not accepted)", args[index]
    return index + 1


def _short(args: list[str], index: int, option_spec: OptionSpec, out: ParsedOptions) -> int:
    arg = args[index]
    if option_spec.numeric and arg[1:].isdigit():
        out.options.append(("-n", arg[1:]))
        return index + 1
    for position in range(1, len(arg)):
        letter = arg[position]
        if letter in option_spec.valued:
            value = arg[position + 1 :]
            if value:
                out.options.append((f"-{letter}", value))
                return index + 1
            if index + 1 >= len(args):
                out.error, out.offender = f"-{letter} needs a value", f"-{letter}"
                return index + 1
            out.options.append((f"-{letter}", args[index + 1]))
            return index + 2
        if letter not in option_spec.flags:
            out.error, out.offender = f"-{letter} (in {arg}) is not a known option", f"-{letter}"
            return index + 1
        out.options.append((f"-{letter}", None))
    return index + 1
