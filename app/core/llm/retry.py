"""When and how long to wait before trying a failed request again."""

from __future__ import annotations

import random
from app.dataclass import dataclass

from app.core.llm.errors import LLMError


@dataclass
class RetryPolicy:
    """Bounded in count (``max_retries`` after the first try) and in total waiting time."""

    max_retries: int = 4
    max_total_seconds: float = 60.0
    base_delay: float = 1.0
    max_delay: float = 30.0
    jitter: float = 0.25  # +/- fraction of the computed backoff

    def delay_for(self, error: LLMError, retry_number: int, waited: float, rng: random.Random | None = None) -> float | None:
        """Seconds to wait before retry ``retry_number`` (1-based), or None to give up.

        A server's Retry-After wins over our backoff; if honouring it would break the
        time budget we give up rather than retry early against the server's wish.
        """
        if not error.retryable or retry_number > self.max_retries:
            return None
        if error.retry_after is not None:
            delay = error.retry_after
        else:
            backoff = min(self.max_delay, self.base_delay * (2 ** (retry_number - 1)))
            spread = (rng or random).uniform(-self.jitter, self.jitter)
            delay = max(0.0, backoff * (1 + spread))
        if waited + delay > self.max_total_seconds:
            return None
        return delay

    def refusal(self, error: LLMError, retry_number: int, waited: float) -> str:
        """Why ``delay_for`` said no, in words, when it was the server's wish (Retry-After) that broke the budget."""
        asked = error.retry_after
        if not error.retryable or asked is None or retry_number > self.max_retries or waited + asked <= self.max_total_seconds:
            return ""
        tries = f"{retry_number} attempt" + ("s" if retry_number != 1 else "")
        return (
            f"the server asked to wait {asked:,.0f} s before trying again (Retry-After), beyond the retry "
            f"budget of {self.max_total_seconds:g} s (model.max_retry_seconds); gave up after {tries}"
        )
