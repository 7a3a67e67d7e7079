"""Splitting a recall query (or any text) into the tokens the heuristic scorer looks for.

Chinese, Japanese and Korean are written without spaces between words, so a
run of their characters becomes overlapping two-character pieces ("记忆召回" ->
"记忆", "忆召", "召回"); any two-character word of the run is then among them.
Other scripts split into runs of letters, marks and digits, of which those of
three or more characters count.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

MAX_HEURISTIC_QUERY_TOKENS = 64
MIN_WORD_TOKEN_CHARS = 3

# Han (with its extensions and compatibility ideographs), Hiragana, Katakana
# (with the phonetic extensions and the kana supplements) and Hangul.
_CJK_RANGES = (
    "\u1100-\u11ff"  # Hangul Jamo
    "\u3005-\u3007\u3021-\u3029\u3038-\u303b"  # Han iteration and number marks
    "\u3040-\u309f"  # Hiragana
    "\u30a0-\u30ff"  # Katakana
    "\u3130-\u318f"  # Hangul compatibility Jamo
    "\u31f0-\u31ff"  # Katakana phonetic extensions
    "\u3400-\u4dbf"  # Han extension A
    "\u4e00-\u9fff"  # Han
    "\ua960-\ua97f"  # Hangul Jamo extended A
    "\uac00-\ud7af"  # Hangul syllables
    "\ud7b0-\ud7ff"  # Hangul Jamo extended B
    "\uf900-\ufaff"  # Han compatibility ideographs
    "\uff66-\uff9f"  # half-width Katakana
    "\U0001aff0-\U0001b16f"  # Kana extended and supplement
    "\U00020000-\U0003134f"  # Han extensions B to G and compatibility supplement
)
_CJK_RUN = re.compile(f"[{_CJK_RANGES}]+")
# Letters and digits (\w without "_"), and combining marks (which \w leaves out).
_MARKS = "\u0300-\u036f\u0483-\u0489\u0591-\u05bd\u0610-\u061a\u064b-\u065f\u0900-\u0903\u093a-\u094f\u0951-\u0957\u0962\u0963\u0981-\u0983\u09bc-\u09d7\u0e31\u0e34-\u0e3a\u0e47-\u0e4e\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
_WORD_RUN = re.compile(rf"(?:[^\W_]|[{_MARKS}])+")


@lru_cache(maxsize=65_536)
def normalize_text(text: str) -> str:
    """NFKC, then lower case: full-width letters, ligatures and case stop mattering."""
    return unicodedata.normalize("NFKC", text).lower()


def query_tokens(query: str) -> list[str]:
    """The distinct tokens of ``query`` in order of appearance; past 64, the first 32 and the last 32."""
    tokens = list(dict.fromkeys(_tokens(normalize_text(query))))
    if len(tokens) > MAX_HEURISTIC_QUERY_TOKENS:
        half = MAX_HEURISTIC_QUERY_TOKENS // 2
        tokens = tokens[:half] + tokens[-half:]
    return tokens


def _tokens(text: str) -> list[str]:
    found: list[str] = []
    position = 0
    for run in _CJK_RUN.finditer(text):
        found.extend(_word_tokens(text[position : run.start()]))
        chars = run.group(0)
        found.extend(chars[i : i + 2] for i in range(len(chars) - 1))
        position = run.end()
    found.extend(_word_tokens(text[position:]))
    return found


def _word_tokens(text: str) -> list[str]:
    tokens = []
    for match in _WORD_RUN.finditer(text):
        word = match.group(0)
        if unicodedata.category(word[0])[0] in "LN" and len(word) >= MIN_WORD_TOKEN_CHARS:
            tokens.append(word)
    return tokens
