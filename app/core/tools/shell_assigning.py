"""The variables a builtin assigns or names: ``printf -v``, ``read``, ``getopts``, ``unset``, ``test -v``.

They matter twice. A name with a subscript (``printf -v 'a[$(rm x)]' y``, ``read
'a[$(rm x)]'``, ``[ -v 'a[$(rm x)]' ]``, ``unset 'a[$(rm x)]'``) is evaluated as
arithmetic, and bash's arithmetic expands ``$(...)`` even inside single quotes here,
because the quotes were removed before the builtin saw the word. And a plain name can
be one that changes which program later runs (``printf -v PATH /repo/bin``,
``read PATH <<< /repo/bin``). Bash's own ``help printf``, ``help read``, ``help
getopts``, ``help unset``, ``help test`` give the option syntax used here.

``let``, ``declare -i`` and ``declare -n`` are worse: every later assignment (or the
arguments themselves) is arithmetic, or goes to whatever variable the reference names;
they are reported as hiding the program whatever their operands.
"""

from __future__ import annotations

from app.core.tools.shell_syntax import Word

# Builtins whose arguments are arithmetic, or that give variables an evaluating attribute.
EVALUATING = {
    "let": "let evaluates its arguments as arithmetic, which can run commands through a variable's value",
}
_DECLARATIONS = frozenset({"declare", "typeset", "local", "export", "readonly"})
_READ_VALUED = frozenset("adinNptu")  # help read: -a array -d delim -i text -n/-N nchars -p prompt -t timeout -u fd


def evaluating_reason(name: str, words: list[Word]) -> str | None:
    """Why this builtin call makes later words evaluate (let; declare -i / -n), or None."""
    if name in EVALUATING:
        return EVALUATING[name]
    if name in _DECLARATIONS:
        for word in words[1:]:
            if word.text.startswith(("-", "+")) and word.text != "--" and ("n" in word.text or "i" in word.text):
                return f"{name} {word.text} makes assignments evaluate as arithmetic or go to another variable"
    return None


def assigned_names(name: str, words: list[Word]) -> list[Word]:
    """The variable-name operands of ``name`` (the builtin as invoked, ``words[0]`` its name)."""
    args = words[1:]
    if name == "printf":
        if args and args[0].text == "-v":
            return args[1:2]
        if args and args[0].text.startswith("-v"):
            return [Word(args[0].text[2:], dynamic=args[0].dynamic, glob=args[0].glob)]
        return []
    if name == "read":
        return _read_names(args)
    if name == "getopts":
        return args[1:2]
    if name == "unset":
        return [w for w in args if not w.text.startswith("-")]
    if name in ("test", "[", "[["):
        return [args[i + 1] for i, w in enumerate(args[:-1]) if w.text == "-v"]
    if name in _DECLARATIONS:
        return [Word(w.text.split("=", 1)[0].rstrip("+"), dynamic=w.dynamic) for w in args if not w.text.startswith(("-", "+"))]
    return []


def _read_names(args: list[Word]) -> list[Word]:
    names: list[Word] = []
    index = 0
    while index < len(args) and args[index].text.startswith("-") and args[index].text != "-":
        text = args[index].text
        if text == "--":
            index += 1
            break
        for position, letter in enumerate(text[1:], start=1):
            if letter in _READ_VALUED:
                value = text[position + 1 :]
                if not value:
                    index += 1
                    value_word = args[index] if index < len(args) else Word("")
                else:
                    value_word = Word(value, dynamic=args[index].dynamic)
                if letter == "a":
                    names.append(value_word)
                break
        index += 1
    return names + args[index:]
