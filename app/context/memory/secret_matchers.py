"""Linear-time equivalents of the two secret patterns a backtracking engine runs slowly.

Both patterns put a wide gap between two literals (``sk-`` … ``T3BlbkFJ``, a
PEM header … its footer). Python's engine retries that gap from every start,
so text full of starts with no end costs starts × gap. These functions decide
the same question (is there a match anywhere?) by finding the literals and
checking the distances between them.
"""

from __future__ import annotations

import re
from bisect import bisect_left

# sk-[C]{20,512}T3BlbkFJ[C]{20,512}, C = [a-zA-Z0-9_-]
_OPENAI_PREFIX = "sk-"
_OPENAI_MARKER = "T3BlbkFJ"
_GAP_MIN, _GAP_MAX, _TAIL_MIN = 20, 512, 20
# Every character of both literals is in C, so a match lies inside one run of C.
_SHORTEST_MATCH = len(_OPENAI_PREFIX) + _GAP_MIN + len(_OPENAI_MARKER) + _TAIL_MIN
_CLASS_RUN = re.compile(rf"[a-zA-Z0-9_-]{{{_SHORTEST_MATCH},}}")

# The PEM rule: a header, 64 to 16384 characters of anything, a footer.
_BODY_MIN, _BODY_MAX = 64, 16384
_KEY_WORDS = re.compile(r"PRIVATE KEY", re.IGNORECASE)
# Each finds where a footer starts (the match is its five dashes; the rest is a
# lookahead). Two footers cannot start within five characters of each other, so
# consuming the dashes skips none, and the literal lets the engine scan fast.
# The lazy {0,100}? finds the same places as the rule's greedy one (only the
# existence of a match counts) with less backtracking; case is ignored for the
# words only, and the class spelled out in both cases, which the engine checks faster.
_FOOTER_STARTS = re.compile(
    r"-----(?=(?i:END)[ A-Za-z0-9_-]{0,100}?(?i:PRIVATE KEY)(?:(?i: BLOCK))?-----)", re.ASCII
)
# The header spelled backwards: run over the reversed text, it finds every place a header ends.
_HEADER_ENDS_REVERSED = re.compile(
    r"-----(?=(?:(?i:KCOLB) )?(?i:YEK ETAVIRP)[ A-Za-z0-9_-]{0,100}?(?i:NIGEB)-----)", re.ASCII
)


def has_openai_marker_key(text: str) -> bool:
    """Whether ``sk-[a-zA-Z0-9_-]{20,512}T3BlbkFJ[a-zA-Z0-9_-]{20,512}`` matches somewhere in ``text``."""
    if _OPENAI_MARKER not in text or _OPENAI_PREFIX not in text:
        return False
    for run in _CLASS_RUN.findall(text):
        if _OPENAI_MARKER in run and _OPENAI_PREFIX in run and _openai_pair_in_run(run):
            return True
    return False


def _openai_pair_in_run(run: str) -> bool:
    # Wanted: 'sk-' at q and the marker at p with GAP_MIN <= p - (q + 3) <= GAP_MAX and
    # at least TAIL_MIN characters after the marker.
    prefix_len, marker_len = len(_OPENAI_PREFIX), len(_OPENAI_MARKER)
    nearest, farthest = prefix_len + _GAP_MIN, prefix_len + _GAP_MAX
    last_marker = len(run) - marker_len - _TAIL_MIN
    p = run.find(_OPENAI_MARKER, nearest)
    while 0 <= p <= last_marker:
        if run.find(_OPENAI_PREFIX, max(0, p - farthest), p - _GAP_MIN) != -1:
            return True
        # No prefix within reach of p. A later marker helps only with a prefix
        # after p - nearest, and then only if that marker lies within reach of it;
        # otherwise the next round jumps ahead by almost GAP_MAX.
        q = run.find(_OPENAI_PREFIX, p - nearest + 1)
        if q == -1:
            return False
        p = run.find(_OPENAI_MARKER, max(p + 1, q + nearest))
    return False


def has_private_key_block(text: str) -> bool:
    """Whether the PEM private-key pattern (case-insensitive) matches somewhere in ``text``."""
    if "-----" not in text or _KEY_WORDS.search(text) is None:
        return False
    footers = [m.start() for m in _FOOTER_STARTS.finditer(text)]
    if not footers:
        return False
    size = len(text)
    for match in _HEADER_ENDS_REVERSED.finditer(text[::-1]):
        end = size - match.start()
        index = bisect_left(footers, end + _BODY_MIN)
        if index < len(footers) and footers[index] <= end + _BODY_MAX:
            return True
    return False
