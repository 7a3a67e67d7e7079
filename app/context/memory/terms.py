"""Text to search terms, the same way for a memory and for a question.

- Case and width are folded (NFKC, lower case); traditional Chinese is folded
  to simplified (``zhconv``, plus a few regional tech words it leaves alone:
  程式碼 is 代码), so 程式碼凍結 meets 代码冻结.
- Words of two or more letters count (``CI``, ``Go``, ``UI``), English stop words
  do not, and English words are stemmed (``snowballstemmer``): deploys, deploying
  and deployed are one term.
- Chinese, Japanese and Korean have no spaces: a run is cut at particles and
  common function words (的, 什么, 我们...), then each piece gives overlapping
  two-character terms; a one-character piece gives itself. A memory also
  indexes every single character, so a one-character question (猫) finds it.
- Dates are terms too: ``2021-05-03``, ``May 2021``, ``2021年5月`` give ``@2021``,
  ``@2021-05`` and ``@m05``; a question's "in 2021", "last May", "去年" resolve
  against today.

The character classes text is split by, and the normalisation every comparison starts with.

CJK_RUN finds runs of Chinese, Japanese and Korean characters (written without
spaces, so terms.py cuts them into two-character pieces); WORD_RUN finds runs
of letters, marks and digits in any other script.
"""

from __future__ import annotations

import re
import time
import unicodedata
from datetime import UTC, date, datetime, timedelta
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


MAX_QUERY_TERMS = 64

ENGLISH_STOP_WORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below between both
    but by can could did do does doing done down during each either else ever every few for from further get gets got
    had has have having he her here hers herself him himself his how i if in into is it its itself just let like me
    more most much must my myself no nor not now of off on once only or other our ours ourselves out over own please
    same she should so some such than that the their theirs them themselves then there these they this those through
    to too under until up upon us very via was we were what whats when where whether which while who whom whose why
    will with would yes yet you your yours yourself yourselves i'm it's don't tell know remember recall say said
    thing things something anything one ones also may might shall again ok okay hi hello thanks thank last next ago""".split()
)
# Split points inside a CJK run: particles and function words that carry no topic.
_CJK_STOP_WORDS = (
    "为什么", "怎么样", "是不是", "有没有", "什么", "怎么", "如何", "哪些", "哪个", "哪里", "我们", "你们", "他们", "她们",
    "它们", "可以", "应该", "是否", "一个", "这个", "那个", "这些", "那些", "还是", "但是", "因为", "所以", "如果", "已经",
    "请问", "告诉", "一下", "知道", "记得", "的话", "时候", "关于", "有关", "之前", "以前", "需要",
)
_CJK_STOP_CHARS = frozenset("的地得了吗呢吧啊呀么嘛哦和与及或是在我你他她它这那个也都就还而又把被让给对从向于以为所将会能要之其请年月日号")
_CJK_SPLIT = re.compile("|".join(_CJK_STOP_WORDS) + "|[的吗呢吧啊呀么嘛哦和与及或是]")
# Regional vocabulary zhconv's script conversion keeps (Taiwan and Hong Kong tech words).
_REGIONAL = (("程式码", "代码"), ("程式", "程序"), ("资料库", "数据库"), ("伺服器", "服务器"), ("软体", "软件"), ("网路", "网络"), ("记忆体", "内存"))
_HAS_HAN = re.compile("[\u3400-\u9fff\uf900-\ufaff]")

_MONTHS = {
    "jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4, "may": 5,
    "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8, "sep": 9, "sept": 9, "september": 9,
    "oct": 10, "october": 10, "nov": 11, "november": 11, "dec": 12, "december": 12,
}
_MONTH_NAMES = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ISO_DATE = re.compile(r"\b((?:19|20)\d\d)[-/.](0?[1-9]|1[0-2])(?:[-/.](0?[1-9]|[12]\d|3[01]))?\b")
# "May 2021", "May 3, 2021", "3 May 2021", "in May": a month is a date only when capitalised
# (or after in/last/next/since/this), so the verb "may" stays a stop word.
_MONTH_DATE = re.compile(
    rf"(?:(?P<rel>\b(?:in|last|next|since|this|until|before|after|during)\s+)(?P<m1>{_MONTH_NAMES})\b|(?:\b(?P<d1>0?[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?\s+(?:of\s+)?)?\b(?P<m2>(?-i:{'|'.join(m.capitalize() for m in sorted(_MONTHS, key=len, reverse=True))}))\b)\.?"
    r"(?:\s+(?P<d2>0?[1-9]|[12]\d|3[01])(?!\d)(?:st|nd|rd|th)?,?)?(?:\s+(?P<year>(?:19|20)\d\d)(?!\d))?",
    re.IGNORECASE,
)
# "the week before 9 June 2023", "the week after ...", "the week of ...": the question asks about
# the week seven days off the date it names (a week term, not the named day's).
_WEEK_OF = re.compile(r"\bweek\s+(before|after|of)\s+(?:the\s+)?$", re.IGNORECASE)
_DIGIT = re.compile(r"\d")
_MONTH_HINT = re.compile(r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)", re.IGNORECASE)
_YEAR = re.compile(r"(?<![\d-])((?:19|20)\d\d)(?![\d-])")
_CJK_DATE = re.compile(r"((?:19|20)\d\d)\s*年(?:\s*(1[0-2]|0?[1-9])\s*月)?|(?<!\d)(1[0-2]|0?[1-9])\s*月")
_RELATIVE = (
    (re.compile(r"\blast year\b|去年", re.IGNORECASE), -1, None),
    (re.compile(r"\bthis year\b|今年", re.IGNORECASE), 0, None),
    (re.compile(r"\blast month\b|上个?月", re.IGNORECASE), None, -1),
    (re.compile(r"\bthis month\b|这个?月|本月", re.IGNORECASE), None, 0),
)


@lru_cache(maxsize=8192)
def _stem(word: str) -> str:
    return _stemmer().stemWord(word)


@lru_cache(maxsize=1)
def _stemmer():  # type: ignore[no-untyped-def]
    import snowballstemmer  # lazily: only a turn with memories pays for it

    return snowballstemmer.stemmer("english")


def fold_chinese(text: str) -> str:
    """Traditional Chinese folded to simplified (text without Han characters is returned as is)."""
    if not _HAS_HAN.search(text):
        return text
    import zhconv  # lazily, like the stemmer

    text = zhconv.convert(text, "zh-cn")
    for regional, common in _REGIONAL:
        text = text.replace(regional, common)
    return text


def document_terms(text: str) -> list[str]:
    """The terms of a memory's field, repeated as often as they occur (its term frequencies)."""
    return _terms(text, document=True, now=None)


def query_terms(text: str, now: float | None = None) -> list[str]:
    """The distinct terms of a question, in order; relative dates resolve against ``now``."""
    terms = list(dict.fromkeys(_terms(text, document=False, now=time.time() if now is None else now)))
    if len(terms) > MAX_QUERY_TERMS:
        half = MAX_QUERY_TERMS // 2
        terms = terms[:half] + terms[-half:]
    return terms


def _terms(text: str, *, document: bool, now: float | None) -> list[str]:
    found = _date_terms(text, document=document, now=now)
    folded = fold_chinese(normalize_text(text))
    position = 0
    for run in CJK_RUN.finditer(folded):
        found.extend(_word_terms(folded[position : run.start()]))
        found.extend(_cjk_terms(run.group(0), document=document))
        position = run.end()
    found.extend(_word_terms(folded[position:]))
    return found


def _word_terms(text: str) -> list[str]:
    terms = []
    for match in WORD_RUN.finditer(text):
        word = match.group(0)
        if len(word) < 2 or word in ENGLISH_STOP_WORDS or unicodedata.category(word[0])[0] not in "LN":
            continue
        if word.isdigit() and len(word) < 3:  # a day or a month number says nothing alone (dates have their own terms)
            continue
        terms.append(_stem(word) if word.isascii() and word.isalpha() else word)
    return terms


def _cjk_terms(run: str, *, document: bool) -> list[str]:
    terms: list[str] = []
    for piece in _CJK_SPLIT.split(run):
        if len(piece) == 1:
            if piece not in _CJK_STOP_CHARS:
                terms.append(piece)
            continue
        terms.extend(piece[i : i + 2] for i in range(len(piece) - 1))
        if document:
            terms.extend(char for char in piece if char not in _CJK_STOP_CHARS)
    return terms


def _day(year: int, month: int, day: int, text: str, at: int) -> tuple[date, int | None]:
    """The date (the last valid day of the month when the day overshoots it) and, when the text
    before it says "week before / after / of", the shift in days to the week it means."""
    while day > 28:
        try:
            found = date(year, month, day)
            break
        except ValueError:
            day -= 1
    else:
        found = date(year, month, day)
    week = _WEEK_OF.search(text, max(0, at - 30), at)
    shift = None if week is None else {"before": -7, "after": 7, "of": 0}[week.group(1).lower()]
    return found, shift


def _date_terms(text: str, *, document: bool, now: float | None) -> list[str]:
    dates: list[tuple[int | None, int | None]] = []  # (year, month)
    today = datetime.fromtimestamp(now, UTC) if now is not None else None
    # Cheap first tests: most memory text has no digit and no month name (halves the indexing time).
    digits = _DIGIT.search(text) is not None
    months = _MONTH_HINT.search(text) is not None
    days: list[tuple[date, int | None]] = []  # a whole date, and the week shift a question asks for
    for match in _ISO_DATE.finditer(text) if digits else ():
        dates.append((int(match.group(1)), int(match.group(2))))
        if match.group(3):
            days.append(_day(int(match.group(1)), int(match.group(2)), int(match.group(3)), text, match.start()))
    for match in _MONTH_DATE.finditer(text) if months else ():
        name = (match.group("m1") or match.group("m2") or "").lower()
        month = _MONTHS.get(name)
        if month is None:
            continue
        year = int(match.group("year")) if match.group("year") else None
        rel = (match.group("rel") or "").strip().lower()
        if year is None and today is not None and rel == "last":
            year = today.year if month < today.month else today.year - 1
        elif year is None and today is not None and rel == "this":
            year = today.year
        day = match.group("d1") or match.group("d2")
        if year is not None and day is not None:
            days.append(_day(year, month, int(day), text, match.start()))
            if days[-1][1] is not None:
                continue  # "the week before 9 June": about that week, not the named day's month
        dates.append((year, month))
    for match in _CJK_DATE.finditer(text) if digits else ():
        if match.group(1):
            dates.append((int(match.group(1)), int(match.group(2)) if match.group(2) else None))
        else:
            dates.append((None, int(match.group(3))))
    for match in _YEAR.finditer(text) if digits else ():
        dates.append((int(match.group(1)), None))
    if today is not None:
        for pattern, year_shift, month_shift in _RELATIVE:
            if pattern.search(text):
                if month_shift is None:
                    dates.append((today.year + (year_shift or 0), None))
                else:
                    months = today.year * 12 + today.month - 1 + month_shift
                    dates.append((months // 12, months % 12 + 1))
    terms: list[str] = []
    for day, shift in days:
        if shift is not None:  # a question's "the week before / after / of <date>"
            iso = (day + timedelta(days=shift)).isocalendar()
            terms.append(f"@w{iso[0]}-{iso[1]:02d}")
            continue
        # A whole date is a day term; a memory also gets its ISO week, what "the week before" asks for.
        terms.append(f"@{day.year}-{day.month:02d}-{day.day:02d}")
        if document:
            iso = day.isocalendar()
            terms.append(f"@w{iso[0]}-{iso[1]:02d}")
    for year, month in dates:
        if year is not None and month is not None:
            terms.append(f"@{year}-{month:02d}")
            if document:
                terms.extend((f"@{year}", f"@m{month:02d}"))
        elif year is not None:
            terms.append(f"@{year}")
        elif month is not None:
            terms.append(f"@m{month:02d}")
    return terms
