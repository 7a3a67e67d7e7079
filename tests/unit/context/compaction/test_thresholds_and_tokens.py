"""compute_thresholds against the spec's table; token counting and calibration."""

from __future__ import annotations

import pytest

from app.context.compaction.thresholds import compute_thresholds
from app.core.tokens import EXACT, ESTIMATE, Calibration, TokenCounter, estimate_tokens


@pytest.mark.parametrize(
    ("window", "effective", "auto", "warn", "hard"),
    [
        (32_000, 12_000, 22_400, 19_200, 25_400),
        (128_000, 108_000, 95_000, 76_800, 105_000),
        (200_000, 180_000, 167_000, 147_000, 177_000),
        (1_000_000, 980_000, 967_000, 947_000, 977_000),
    ],
)
def test_spec_table(window: int, effective: int, auto: int, warn: int, hard: int) -> None:
    t = compute_thresholds(window)
    assert t.effective_window == pytest.approx(effective)
    assert t.auto == pytest.approx(auto)
    assert t.warn == pytest.approx(warn)
    assert t.hard == pytest.approx(hard)


@pytest.mark.parametrize("window", [0, 1, 5_000, 20_000, 33_000, 65_536, 131_072, 262_144])
@pytest.mark.parametrize("pct", [None, 0.0, 0.3, 0.7, 0.95, 1.0, 7.0, -1.0, float("nan")])
def test_order_is_always_warn_auto_hard_within_window(window: int, pct: float | None) -> None:
    t = compute_thresholds(window, pct)
    assert 0 <= t.warn <= t.auto
    assert t.hard <= window
    if window >= 20_000:
        assert t.auto <= t.hard


def test_pct_is_clamped_and_nan_means_default() -> None:
    assert compute_thresholds(100_000, float("nan")) == compute_thresholds(100_000, 0.7)
    assert compute_thresholds(100_000, 3.0) == compute_thresholds(100_000, 1.0)
    assert compute_thresholds(32_000, 0.5).auto == pytest.approx(16_000)
    assert compute_thresholds(32_000, 0.5).warn == pytest.approx(12_800)


def test_no_rounding() -> None:
    assert compute_thresholds(33_333).auto == pytest.approx(0.7 * 33_333)


def test_bands() -> None:
    t = compute_thresholds(200_000)
    assert [t.band(x) for x in (0, 147_000, 167_000, 177_000, 300_000)] == ["ok", "warn", "auto", "hard", "hard"]


def test_estimate_is_utf8_bytes_over_four() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2
    assert estimate_tokens("你好") == 2  # 6 bytes
    assert estimate_tokens("中" * 60) == 45  # chars/4 would say 15


def test_non_qwen_models_estimate_and_cache() -> None:
    counter = TokenCounter("gpt-5")
    assert not counter.can_be_exact and counter.load() is False
    assert counter.method == ESTIMATE
    assert counter.count("hello world!") == 3
    assert counter.count("hello world!") == 3


def test_qwen_models_count_exactly_once_loaded() -> None:
    counter = TokenCounter("qwen3-coder-plus")
    before = counter.count("def main():\n    print('hello, world')\n")
    assert counter.method == ESTIMATE
    assert counter.load() is True
    assert counter.method == EXACT
    exact = counter.count("def main():\n    print('hello, world')\n")
    assert exact != before or exact > 0
    assert counter.count("你好世界") <= 4
    # Special-token text is counted as ordinary text, never rejected.
    assert counter.count("<|im_start|>") > 1


def test_calibration_scales_towards_the_server() -> None:
    calibration = Calibration()
    assert calibration.apply(1000) == 1000 and not calibration.observed
    calibration.observe(counted=1000, reported=1200)
    assert calibration.apply(500) == 600
    calibration.observe(counted=10, reported=10_000)
    assert calibration.ratio == 4.0
    calibration.observe(counted=0, reported=5)
    assert calibration.ratio == 4.0


def test_an_explicit_pct_places_auto_at_that_fraction_of_any_window() -> None:
    t = compute_thresholds(1_000_000, 0.5, origin="settings.yaml")
    assert (t.warn, t.auto, t.hard) == (pytest.approx(400_000), pytest.approx(500_000), pytest.approx(977_000))
    assert t.source == "compaction.pct 0.5 from settings.yaml"
    assert [t.band(x) for x in (399_999, 400_000, 499_999, 500_000, 977_000)] == ["ok", "warn", "warn", "auto", "hard"]


def test_unset_pct_keeps_the_seed_formula_and_says_so() -> None:
    t = compute_thresholds(1_000_000)
    assert t.auto == pytest.approx(967_000), "33 K before the end of a large window"
    assert t.source.startswith("the default formula")
