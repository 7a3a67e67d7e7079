"""The character classes text is split by, and the normalisation every comparison starts with.

CJK_RUN finds runs of Chinese, Japanese and Korean characters (written without
spaces, so terms.py cuts them into two-character pieces); WORD_RUN finds runs
of letters, marks and digits in any other script.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

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
CJK_RUN = _CJK_RUN = re.compile(f"[{_CJK_RANGES}]+")
# Letters and digits (\w without "_"), and combining marks (which \w leaves out).
_MARKS = "\u0300-\u036f\u0483-\u0489\u0591-\u05bd\u0610-\u061a\u064b-\u065f\u0900-\u0903\u093a-\u094f\u0951-\u0957\u0962\u0963\u0981-\u0983\u09bc-\u09d7\u0e31\u0e34-\u0e3a\u0e47-\u0e4e\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
WORD_RUN = _WORD_RUN = re.compile(rf"(?:[^\W_]|[{_MARKS}])+")


@lru_cache(maxsize=65_536)
def normalize_text(text: str) -> str:
    """NFKC, then lower case: full-width letters, ligatures and case stop mattering."""
    return unicodedata.normalize("NFKC", text).lower()
