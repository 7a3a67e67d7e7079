"""The one background-status sink: every receiver is told, a broken one stops nobody, a disconnected one hears nothing."""

from __future__ import annotations

from app.core.events import MEMORY_WORK, SKILL_DRAFTS, BackgroundStatus
from app.core.status import StatusRelay


def test_each_receiver_hears_each_status_in_order_until_it_disconnects() -> None:
    relay = StatusRelay()
    heard: list[str] = []
    first = relay.connect(lambda status: heard.append(f"a {status.source} {status.state}"))
    relay.connect(lambda status: heard.append(f"b {status.source}"))
    relay(BackgroundStatus(source=MEMORY_WORK, state="running"))
    first()
    relay(BackgroundStatus(source=SKILL_DRAFTS, state="done"))
    assert heard == ["a memory running", "b memory", "b drafts"]


def test_a_broken_receiver_does_not_stop_the_producer_or_the_others() -> None:
    relay = StatusRelay()
    heard: list[str] = []

    def broken(status: BackgroundStatus) -> None:
        raise RuntimeError("a view crashed")

    relay.connect(broken)
    relay.connect(lambda status: heard.append(status.state))
    relay(BackgroundStatus(source=MEMORY_WORK, state="done"))  # does not raise
    assert heard == ["done"]


def test_a_status_is_a_typed_event_with_its_json() -> None:
    assert BackgroundStatus(source=SKILL_DRAFTS, state="failed").to_json() == {"type": "background_status", "source": "drafts", "state": "failed"}
