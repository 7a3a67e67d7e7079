"""The secret scanner: which credential rules a text trips, never what matched.

Guards team memory, which is committed for everyone to read (the check before
a write there is at the end), and recall, which must not put a stored
credential into a prompt. A finding holds the rule id and its label only; the
matched value is neither returned nor logged, so a report about a leak cannot
itself leak.

The rules are a small, low-false-positive subset of gitleaks' rules: each
names only credentials with a distinctive prefix, so ordinary prose and code
never trip it. Patterns are kept verbatim (as the JavaScript source writes
them); they compile with re.ASCII because JavaScript's ``\\w``, ``\\d`` and
``\\b`` are ASCII-only.

Two patterns put a wide gap between two literals (``sk-`` ... ``T3BlbkFJ``, a
PEM header ... its footer). Python's backtracking engine retries that gap from
every start, so text full of starts with no end costs starts x gap; linear
matchers decide the same question (is there a match anywhere?) by finding the
literals and checking the distances between them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from bisect import bisect_left
from app.dataclass import dataclass
from pathlib import Path

from app.context.memory.paths import is_team_auto_mem_path


@dataclass(frozen=True)
class SecretRule:
    """One gitleaks rule kept here: the credential it names and the patterns that find it."""

    rule_id: str
    # The rule fires when any pattern matches.
    patterns: tuple[str, ...]
    ignore_case: bool = False
    # Substrings of which at least one must be present for a match: a cheap first test.
    needles: tuple[str, ...] = ()


OPENAI_MARKER_PATTERN = r"sk-[a-zA-Z0-9_-]{20,512}T3BlbkFJ[a-zA-Z0-9_-]{20,512}"
PRIVATE_KEY_PATTERN = (
    r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S-]{64,16384}?"
    r"-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----"
)

SECRET_RULES: tuple[SecretRule, ...] = (
    SecretRule("aws-access-token", (r"\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})\b",), needles=("A3T", "AKIA", "ASIA", "ABIA", "ACCA")),
    SecretRule("alibaba-cloud-access-key", (r"\b(LTAI[a-zA-Z0-9]{12,20})\b",), needles=("LTAI",)),
    SecretRule("gcp-api-key", (r"AIza[\w-]{35}",), needles=("AIza",)),
    SecretRule("gcp-oauth-client-secret", (r"GOCSPX-[\w-]{24}",), needles=("GOCSPX-",)),
    SecretRule("digitalocean-pat", (r"dop_v1_[a-f0-9]{64}",), needles=("dop_v1_",)),
    SecretRule("anthropic-api-key", (r"sk-ant-[a-zA-Z0-9_-]{20,}",), needles=("sk-ant-",)),
    SecretRule(
        "openai-api-key",
        (r"sk-(?:proj|svcacct|admin)-[a-zA-Z0-9_-]{20,}", OPENAI_MARKER_PATTERN, r"sk-[a-zA-Z0-9]{48}"),
        needles=("sk-",),
    ),
    SecretRule("huggingface-access-token", (r"hf_[a-zA-Z0-9]{34,}",), needles=("hf_",)),
    SecretRule("github-pat", (r"ghp_[0-9a-zA-Z]{36}",), needles=("ghp_",)),
    SecretRule("github-fine-grained-pat", (r"github_pat_\w{82}",), needles=("github_pat_",)),
    SecretRule("github-app-token", (r"(?:ghu|ghs)_[0-9a-zA-Z]{36}",), needles=("ghu_", "ghs_")),
    SecretRule("github-oauth", (r"gho_[0-9a-zA-Z]{36}",), needles=("gho_",)),
    SecretRule("gitlab-pat", (r"glpat-[\w-]{20}",), needles=("glpat-",)),
    SecretRule("slack-bot-token", (r"xoxb-[0-9]{10,13}-[0-9]{10,13}[a-zA-Z0-9-]*",), needles=("xoxb-",)),
    SecretRule("slack-app-token", (r"xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+",), ignore_case=True),
    SecretRule("sendgrid-api-token", (r"SG\.[\w-]{22}\.[\w-]{43}",), needles=("SG.",)),
    SecretRule("npm-access-token", (r"npm_[a-zA-Z0-9]{36}",), needles=("npm_",)),
    SecretRule("stripe-access-token", (r"(?:sk|rk)_(?:test|live|prod)_[a-zA-Z0-9]{10,99}",), needles=("k_test_", "k_live_", "k_prod_")),
    SecretRule("private-key", (PRIVATE_KEY_PATTERN,), ignore_case=True, needles=("-----",)),
)

# Parts of a rule id shown in a form other than plain capitalisation.
LABEL_WORDS = {
    "aws": "AWS",
    "gcp": "GCP",
    "api": "API",
    "pat": "PAT",
    "oauth": "OAuth",
    "npm": "NPM",
    "github": "GitHub",
    "gitlab": "GitLab",
    "openai": "OpenAI",
    "digitalocean": "DigitalOcean",
    "huggingface": "HuggingFace",
    "alibaba": "Alibaba",
    "sendgrid": "SendGrid",
}


def rule_label(rule_id: str) -> str:
    """``github-pat`` -> ``GitHub PAT``."""
    return " ".join(LABEL_WORDS.get(part, part[:1].upper() + part[1:]) for part in rule_id.split("-"))


def compile_pattern(pattern: str, ignore_case: bool) -> re.Pattern[str]:
    return re.compile(pattern, re.ASCII | (re.IGNORECASE if ignore_case else 0))


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


@dataclass(frozen=True)
class SecretFinding:
    """A rule that fired: its id and a label for a person, never the text that matched."""

    rule_id: str
    label: str


# Patterns a backtracking engine would run in quadratic time get linear matchers.
_LINEAR_MATCHERS: dict[str, Callable[[str], bool]] = {
    OPENAI_MARKER_PATTERN: has_openai_marker_key,
    PRIVATE_KEY_PATTERN: has_private_key_block,
}


def _matcher(rule: SecretRule, pattern: str) -> Callable[[str], bool]:
    if pattern in _LINEAR_MATCHERS:
        return _LINEAR_MATCHERS[pattern]
    compiled = compile_pattern(pattern, rule.ignore_case)
    return lambda text: compiled.search(text) is not None


@dataclass(frozen=True)
class _CompiledRule:
    """A rule ready to run: its needles are a cheap test before any matcher runs."""

    finding: SecretFinding
    needles: tuple[str, ...]
    matchers: tuple[Callable[[str], bool], ...]

    def fires(self, text: str) -> bool:
        if self.needles and not any(needle in text for needle in self.needles):
            return False
        return any(match(text) for match in self.matchers)


_RULES = tuple(
    _CompiledRule(
        finding=SecretFinding(rule.rule_id, rule_label(rule.rule_id)),
        needles=rule.needles,
        matchers=tuple(_matcher(rule, pattern) for pattern in rule.patterns),
    )
    for rule in SECRET_RULES
)


def scan(text: str) -> list[SecretFinding]:
    """One finding per rule that fires on ``text``, in rule order."""
    return [rule.finding for rule in _RULES if rule.fires(text)]


scan_for_secrets = scan


def contains_secret(text: str) -> bool:
    """Whether any rule fires (stops at the first)."""
    return any(rule.fires(text) for rule in _RULES)


def describe_findings(findings: list[SecretFinding]) -> str:
    """``GitHub PAT, AWS Access Token``: what was found, for a message to the person."""
    return ", ".join(f.label for f in findings)


class SecretsInTeamMemoryError(Exception):
    """A write into team memory was refused because the text holds credentials."""

    def __init__(self, path: Path | str, findings: list[SecretFinding]) -> None:
        self.path = Path(path)
        self.findings = findings
        super().__init__(
            f"refused to write {self.path}: team memory is committed to git and the text looks like it holds "
            f"a secret ({describe_findings(findings)}); remove it and try again"
        )


def check_team_memory_secrets(team_root: Path | str, path: Path | str, content: str) -> list[SecretFinding]:
    """The secrets in ``content`` when ``path`` lands in team memory; [] for any other path.

    The path test comes first because it is cheap and most writes are not to team memory.
    """
    if not is_team_auto_mem_path(team_root, path):
        return []
    return scan(content)
