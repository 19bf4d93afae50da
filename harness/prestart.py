"""A start begun in the background: Spark's, while the simulator's workers run.

Starting Spark takes about 5 s of which much is waiting for the JVM; begun once the
workers are running, it overlaps their work and the comparison finds the session ready.
Begin only after the workers are forked: a process forked while a thread is starting a
JVM would inherit that thread's locks half-held.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

Started = TypeVar("Started")


class Prestart(Generic[Started]):
    """`start()` run once, in a background thread from `begin()` on, or in the caller's
    thread when called before; calling waits for it and returns its result, or raises its
    error."""

    def __init__(self, start: Callable[[], Started]) -> None:
        self._start = start
        self._thread: threading.Thread | None = None
        self._result: Started | None = None
        self._error: BaseException | None = None

    def begin(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="prestart", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        try:
            self._result = self._start()
        except BaseException as error:  # handed to whoever calls for the result
            self._error = error

    def __call__(self) -> Started:
        if self._thread is None:
            return self._start()
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._result  # type: ignore[return-value]

    def wait(self) -> None:
        """Let a start under way finish, so that what it started can be stopped."""
        if self._thread is not None:
            self._thread.join()
