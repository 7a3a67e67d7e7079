"""The secret scanner: every rule fires on its credential and not on a near miss.

Test credentials are assembled from a prefix and generated characters at run
time, so no string in this repository looks like a real secret.
"""

from __future__ import annotations

import logging
import random

import pytest

from app.context.memory.secrets import check_team_memory_secrets
from app.context.memory.secrets import (
    has_openai_marker_key,
    has_private_key_block,
)
from app.context.memory.secrets import (
    OPENAI_MARKER_PATTERN,
    PRIVATE_KEY_PATTERN,
    SECRET_RULES,
    compile_pattern,
    rule_label,
)
from app.context.memory.secrets import SecretFinding, contains_secret, scan
from tests.unit.memory_support import make_paths, piece

UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
LOWER = "abcdefghijklmnopqrstuvwxyz"
DIGITS = "0123456789"
ALNUM = UPPER + LOWER + DIGITS
WORD = ALNUM + "_"
HEX = "0123456789abcdef"
PEM_BODY = piece(ALNUM + "+/", 64 * 3)


def _pem(kind: str, body: str) -> str:
    return f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----"


# rule id -> (samples that must fire, near misses that must not)
CASES: dict[str, tuple[list[str], list[str]]] = {
    "aws-access-token": (
        ["AKIA" + piece(UPPER + DIGITS, 16), "key=ASIA" + piece(UPPER + DIGITS, 16) + ".", "A3TX" + piece(UPPER + DIGITS, 16)],
        ["AKIA" + piece(UPPER + DIGITS, 15), "xAKIA" + piece(UPPER + DIGITS, 16), "AKIA" + piece(UPPER + DIGITS, 17), "akia" + piece(UPPER, 16)],
    ),
    "alibaba-cloud-access-key": (
        ["LTAI" + piece(ALNUM, 12), "(LTAI" + piece(ALNUM, 20) + ")"],
        ["LTAI" + piece(ALNUM, 11), "LTAI" + piece(ALNUM, 21), "xLTAI" + piece(ALNUM, 16)],
    ),
    "gcp-api-key": (["AIza" + piece(WORD + "-", 35), "k=AIza" + piece(WORD, 35) + "}"], ["AIza" + piece(WORD, 34), "aiza" + piece(WORD, 35)]),
    "gcp-oauth-client-secret": (["GOCSPX-" + piece(WORD + "-", 24)], ["GOCSPX-" + piece(WORD, 23), "GOCSPX_" + piece(WORD, 24)]),
    "digitalocean-pat": (["dop_v1_" + piece(HEX, 64)], ["dop_v1_" + piece(HEX, 63), "dop_v1_" + piece(HEX.upper(), 64)]),
    "anthropic-api-key": (["sk-ant-" + piece(ALNUM + "_-", 20), "sk-ant-" + piece(ALNUM, 90) + ","], ["sk-ant-" + piece(ALNUM, 19), "sk_ant-" + piece(ALNUM, 40)]),
    "openai-api-key": (
        [
            "sk-proj-" + piece(ALNUM + "_-", 20),
            "sk-svcacct-" + piece(ALNUM, 40),
            "sk-admin-" + piece(ALNUM, 25) + ")",
            "sk-" + piece(ALNUM, 20) + "T3BlbkFJ" + piece(ALNUM, 20),
            "sk-" + piece(ALNUM, 48),
        ],
        [
            "sk-proj-" + piece(ALNUM, 19),
            "sk-" + piece(ALNUM, 47),
            "sk-" + piece(ALNUM, 19) + "T3BlbkFJ" + piece(ALNUM, 20),
            "sk-" + piece(ALNUM, 20) + "T3BlbkFJ" + piece(ALNUM, 19),
            "sk-" + piece(LOWER, 30) + " T3BlbkFJ" + piece(ALNUM, 30),
        ],
    ),
    "huggingface-access-token": (["hf_" + piece(ALNUM, 34), "hf_" + piece(ALNUM, 60)], ["hf_" + piece(ALNUM, 33), "HF_" + piece(ALNUM, 40)]),
    "github-pat": (["ghp_" + piece(ALNUM, 36), "(ghp_" + piece(ALNUM, 36) + ")"], ["ghp_" + piece(ALNUM, 35), "ghp-" + piece(ALNUM, 36)]),
    "github-fine-grained-pat": (["github_pat_" + piece(WORD, 82)], ["github_pat_" + piece(WORD, 81), "github-pat_" + piece(WORD, 82)]),
    "github-app-token": (["ghu_" + piece(ALNUM, 36), "ghs_" + piece(ALNUM, 36)], ["ghx_" + piece(ALNUM, 36), "ghs_" + piece(ALNUM, 35)]),
    "github-oauth": (["gho_" + piece(ALNUM, 36)], ["gho_" + piece(ALNUM, 35), "GHO_" + piece(ALNUM, 36)]),
    "gitlab-pat": (["glpat-" + piece(WORD + "-", 20)], ["glpat-" + piece(WORD, 19), "glpat_" + piece(WORD, 20)]),
    "slack-bot-token": (
        ["xoxb-" + piece(DIGITS, 10) + "-" + piece(DIGITS, 13) + piece(ALNUM + "-", 24)],
        ["xoxb-" + piece(DIGITS, 9) + "-" + piece(DIGITS, 12), "xoxp-" + piece(DIGITS, 12) + "-" + piece(DIGITS, 12)],
    ),
    "slack-app-token": (
        ["xapp-1-" + piece(UPPER + DIGITS, 11) + "-" + piece(DIGITS, 13) + "-" + piece(LOWER + DIGITS, 64), "XAPP-2-abc-12-DEF"],
        ["xapp-x-" + piece(UPPER, 11) + "-1-abc", "xapp-1-" + piece(UPPER, 11) + "-" + piece(LOWER, 4) + "-abc"],
    ),
    "sendgrid-api-token": (
        ["SG." + piece(WORD + "-", 22) + "." + piece(WORD + "-", 43)],
        ["SG." + piece(WORD, 21) + "." + piece(WORD, 43), "SG." + piece(WORD, 22) + "." + piece(WORD, 42), "sg." + piece(WORD, 22) + "." + piece(WORD, 43)],
    ),
    "npm-access-token": (["npm_" + piece(ALNUM, 36)], ["npm_" + piece(ALNUM, 35), "npm-" + piece(ALNUM, 36)]),
    "stripe-access-token": (
        ["sk_live_" + piece(ALNUM, 24), "rk_test_" + piece(ALNUM, 10), "sk_prod_" + piece(ALNUM, 99)],
        ["sk_live_" + piece(ALNUM, 9), "sk_dev_" + piece(ALNUM, 24), "pk_live_" + piece(ALNUM, 24)],
    ),
    "private-key": (
        [
            _pem("RSA PRIVATE KEY", PEM_BODY),
            _pem("PRIVATE KEY", PEM_BODY[:62]),  # exactly 64 characters between header and footer
            _pem("OPENSSH PRIVATE KEY", PEM_BODY),
            _pem("PGP PRIVATE KEY BLOCK", PEM_BODY),
            _pem("private key", PEM_BODY).lower(),  # the rule ignores case
        ],
        [
            _pem("RSA PRIVATE KEY", PEM_BODY[:61]),  # 63 characters between header and footer
            _pem("PUBLIC KEY", PEM_BODY),
            "-----BEGIN RSA PRIVATE KEY-----\n" + PEM_BODY,  # no footer
            _pem("RSA PRIVATE KEY", "x" * 16_400),  # a body past 16,384 characters
        ],
    ),
}

LABELS = {
    "aws-access-token": "AWS Access Token",
    "alibaba-cloud-access-key": "Alibaba Cloud Access Key",
    "gcp-api-key": "GCP API Key",
    "gcp-oauth-client-secret": "GCP OAuth Client Secret",
    "digitalocean-pat": "DigitalOcean PAT",
    "anthropic-api-key": "Anthropic API Key",
    "openai-api-key": "OpenAI API Key",
    "huggingface-access-token": "HuggingFace Access Token",
    "github-pat": "GitHub PAT",
    "github-fine-grained-pat": "GitHub Fine Grained PAT",
    "github-app-token": "GitHub App Token",
    "github-oauth": "GitHub OAuth",
    "gitlab-pat": "GitLab PAT",
    "slack-bot-token": "Slack Bot Token",
    "slack-app-token": "Slack App Token",
    "sendgrid-api-token": "SendGrid API Token",
    "npm-access-token": "NPM Access Token",
    "stripe-access-token": "Stripe Access Token",
    "private-key": "Private Key",
}


def test_there_are_nineteen_rules_with_labels() -> None:
    assert [rule.rule_id for rule in SECRET_RULES] == list(CASES)
    assert len(SECRET_RULES) == 19
    assert {rule.rule_id: rule_label(rule.rule_id) for rule in SECRET_RULES} == LABELS


@pytest.mark.parametrize("rule_id", list(CASES))
def test_each_rule_fires_on_its_credential(rule_id: str) -> None:
    for sample in CASES[rule_id][0]:
        found = scan(f"Notes before. {sample} and after.")
        assert SecretFinding(rule_id, LABELS[rule_id]) in found, sample


@pytest.mark.parametrize("rule_id", list(CASES))
def test_each_rule_ignores_near_misses(rule_id: str) -> None:
    for sample in CASES[rule_id][1]:
        assert rule_id not in {f.rule_id for f in scan(f"Notes: {sample} end")}, sample


def test_findings_are_deduplicated_in_rule_order() -> None:
    text = " ".join(["ghp_" + piece(ALNUM, 36, seed=1), "ghp_" + piece(ALNUM, 36, seed=2), "AKIA" + piece(UPPER, 16)])
    assert [f.rule_id for f in scan(text)] == ["aws-access-token", "github-pat"]


def test_findings_never_carry_the_value(caplog: pytest.LogCaptureFixture) -> None:
    token = "npm_" + piece(ALNUM, 36)
    with caplog.at_level(logging.DEBUG):
        findings = scan(f"token {token}")
    assert findings == [SecretFinding("npm-access-token", "NPM Access Token")]
    assert token not in repr(findings) and token not in caplog.text
    assert set(vars(findings[0])) == {"rule_id", "label"}


def test_ordinary_text_is_clean() -> None:
    text = "Run `make test` with sk-learn installed; ghp is a prefix, AKIA too. -----BEGIN notes-----"
    assert scan(text) == [] and not contains_secret(text)


def test_the_linear_matchers_agree_with_the_patterns() -> None:
    """The rewritten matchers decide exactly what the regexes decide, on many generated texts."""
    openai = compile_pattern(OPENAI_MARKER_PATTERN, False)
    private_key = compile_pattern(PRIVATE_KEY_PATTERN, True)
    rng = random.Random(20260819)
    openai_parts = ["sk-", "T3BlbkFJ", "a" * 7, "b" * 19, "c" * 100, " ", "-", "\n", "sk-ab", "x" * 400]
    pem_parts = ["-----BEGIN", "-----begin", "-----END", "-----End", " RSA", " PRIVATE KEY", "PRIVATE KEY", " BLOCK", "-----", "x" * 30, "y" * 60, "\n", "z" * 200, " ", "!"]
    hits = [0, 0]
    for _ in range(6000):
        text = "".join(rng.choice(openai_parts) for _ in range(rng.randint(1, 40)))
        expected = openai.search(text) is not None
        assert has_openai_marker_key(text) is expected, text
        hits[0] += expected
        text = "".join(rng.choice(pem_parts) for _ in range(rng.randint(1, 30)))
        expected = private_key.search(text) is not None
        assert has_private_key_block(text) is expected, text
        hits[1] += expected
    assert min(hits) > 20  # both outcomes were exercised


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "text",
    [
        "sk-" * 340_000,
        "sk-" + "a" * 600 + "T3BlbkFJ" * 120_000,
        "-----BEGIN PRIVATE KEY-----\n" * 37_000,
        "-----END PRIVATE KEY-----" * 20_000 + "-----BEGIN RSA PRIVATE KEY-----" * 16_000,
        "xapp-1-" + "A" * 1_000_000,
        "hf_" * 340_000 + "LTAI" * 10,
    ],
    ids=["sk-run", "markers", "pem-headers", "pem-mixed", "slack-app", "prefixes"],
)
def test_adversarial_megabytes_finish(text: str) -> None:
    # Backtracking versions of these rules take minutes on such text; the timeout catches a regression.
    scan(text[:1_000_000])


def test_team_guard_checks_team_paths_only(tmp_path) -> None:  # type: ignore[no-untyped-def]
    paths = make_paths(tmp_path)
    token = "glpat-" + piece(WORD, 20)
    assert check_team_memory_secrets(paths.team_root, paths.project_root / "user" / "a.md", token) == []
    assert check_team_memory_secrets(paths.team_root, paths.team_root / "user" / "a.md", token) == [
        SecretFinding("gitlab-pat", "GitLab PAT")
    ]
