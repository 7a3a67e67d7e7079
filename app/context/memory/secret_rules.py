"""The secret patterns: a small, low-false-positive subset of gitleaks' rules.

Each rule names only credentials with a distinctive prefix, so ordinary prose
and code never trip it. Patterns are kept verbatim (as the JavaScript source
writes them); they compile with re.ASCII because JavaScript's ``\\w``, ``\\d``
and ``\\b`` are ASCII-only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class SecretRule:
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
