"""Live updates: one broadcaster, a queue per open page, thin server-sent-event generators.

The table's producer (whoever changed it: a tap, the camera, the demo) calls
:meth:`Broadcaster.publish` once per change, after the change is committed; every page
watching that table gets a wake-up in its own queue and renders its own view, so a
player's hand is computed for that player only.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any

HEARTBEAT_S = 15.0
QUEUE_SIZE = 64


class Subscription:
    """One open page's queue of wake-ups."""

    def __init__(self, table_id: str):
        self.table_id = table_id
        self.queue: queue.Queue[int] = queue.Queue(QUEUE_SIZE)

    def put(self, version: int) -> None:
        """Queue a wake-up without ever blocking the producer."""
        try:
            self.queue.put_nowait(version)
        except queue.Full:
            # A stalled page only needs the newest version: drop the oldest wake-up.
            try:
                self.queue.get_nowait()
            except queue.Empty:
                pass
            self.queue.put_nowait(version)


class Broadcaster:
    """Fan out table versions to every subscribed page."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subs: dict[str, set[Subscription]] = {}

    def subscribe(self, table_id: str) -> Subscription:
        """Return a new queue for one page watching ``table_id``."""
        sub = Subscription(table_id)
        with self._lock:
            self._subs.setdefault(table_id, set()).add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        """Forget a page that closed."""
        with self._lock:
            subs = self._subs.get(sub.table_id)
            if subs is not None:
                subs.discard(sub)
                if not subs:
                    del self._subs[sub.table_id]

    def publish(self, table_id: str, version: int) -> None:
        """Wake every page watching ``table_id``."""
        with self._lock:
            subs = list(self._subs.get(table_id, ()))
        for sub in subs:
            sub.put(version)

    def watchers(self, table_id: str) -> int:
        """Return how many pages watch ``table_id``."""
        with self._lock:
            return len(self._subs.get(table_id, ()))


def sse_stream(
    broadcaster: Broadcaster,
    table_id: str,
    render: Callable[[], dict[str, Any]],
    heartbeat_s: float = HEARTBEAT_S,
    max_events: int | None = None,
) -> Iterator[str]:
    """Yield server-sent events: the current snapshot at once, then one per change."""
    sub = broadcaster.subscribe(table_id)
    sent = 0
    try:
        yield _event(render())
        sent += 1
        while max_events is None or sent < max_events:
            try:
                sub.queue.get(timeout=heartbeat_s)
            except queue.Empty:
                yield "event: ping\ndata: {}\n\n"  # an event, not a comment: pages watch for it
                continue
            # Coalesce a burst of changes into one render of the newest state.
            while True:
                try:
                    sub.queue.get_nowait()
                except queue.Empty:
                    break
            yield _event(render())
            sent += 1
    finally:
        broadcaster.unsubscribe(sub)


def _event(data: dict[str, Any]) -> str:
    return f"event: snapshot\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"
