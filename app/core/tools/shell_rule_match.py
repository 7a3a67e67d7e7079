"""How one shell rule pattern matches one invocation found in a command line.

Deny and ask rules are matched generously: against the invocation as written,
without its ``NAME=value`` prefix, and with a path program reduced to its name
(``/bin/rm`` and ``./rm`` are ``rm``). When a word is known only at run time
(``rm $X``, ``rm *``, the file names ``xargs`` or ``find -exec ... {}`` add), the
rule matches if *some* value of those words would match: word by word, a
run-time word may stand for any number of words.

Allow rules are matched strictly: the invocation as written, each run-time word
standing for text no literal character of the pattern matches (only ``*`` does).
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from functools import lru_cache

from app.core.tools.shell_wrappers import Invocation

# Stands for a word known only when the command runs: no pattern character but "*" matches it.
_RUNTIME = "\x00"
# Beyond this many words the word-by-word search is not tried: a deny rule is taken to match.
MAX_SEARCH_WORDS = 200


def deny_pattern_matches(pattern: str, invocation: Invocation) -> bool:
    literal_views = _views(invocation)
    if not invocation.dynamic:
        return any(fnmatchcase(view, pattern) for view in literal_views)
    tokens = tuple(pattern.split())
    for words in _word_views(invocation):
        if len(words) + len(tokens) > MAX_SEARCH_WORDS:
            return True  # strict on purpose: a deny rule errs towards denying
        if _could_match(tokens, tuple(words)):
            return True
    return False


def allow_pattern_matches(pattern: str, invocation: Invocation) -> bool:
    parts = [w.text if w.known else _RUNTIME for w in invocation.assignments + invocation.words]
    if invocation.appended:
        parts.append(_RUNTIME)
    text = " ".join(parts)
    if fnmatchcase(text, pattern):
        return True
    # "xargs rm": with no words added, the text is "rm", which a bare "rm" rule allows too.
    return invocation.appended and fnmatchcase(" ".join(parts[:-1]), pattern)


def _views(invocation: Invocation) -> list[str]:
    argv = [w.text for w in invocation.words]
    views = [invocation.text, " ".join(argv)]
    if argv and argv[0] != invocation.name:
        views.append(" ".join([invocation.name, *argv[1:]]))
    return views


def _word_views(invocation: Invocation) -> list[list[str | None]]:
    """The words (None for a run-time word) as written, without assignments, and by program name."""
    argv: list[str | None] = [w.text if w.known else None for w in invocation.words]
    if invocation.appended:
        argv.append(None)
    prefix: list[str | None] = [w.text if w.known else None for w in invocation.assignments]
    views = [prefix + argv, argv]
    if argv and argv[0] is not None and argv[0] != invocation.name:
        views.append([invocation.name, *argv[1:]])
    return views


@lru_cache(maxsize=4096)
def _could_match(tokens: tuple[str, ...], words: tuple[str | None, ...]) -> bool:
    """Whether some value of the run-time words (None) makes ``words`` match the pattern's tokens."""
    if not tokens:
        return all(word is None for word in words)  # run-time words may be empty
    if not words:
        return all(set(token) <= {"*"} for token in tokens)
    token, word = tokens[0], words[0]
    if word is None:
        # It may be empty, stand for this token, or for this token and more.
        return _could_match(tokens, words[1:]) or _could_match(tokens[1:], words) or _could_match(tokens[1:], words[1:])
    if "*" in token:
        # A star may span spaces: let the token swallow one or more words.
        for end in range(1, len(words) + 1):
            chunk = words[:end]
            if None in chunk:
                if _could_match(tokens, words[end - 1 :]) or _could_match(tokens[1:], words[end:]):
                    return True
                break
            if fnmatchcase(" ".join(w for w in chunk if w is not None), token) and _could_match(tokens[1:], words[end:]):
                return True
        return False
    return fnmatchcase(word, token) and _could_match(tokens[1:], words[1:])
