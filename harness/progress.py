"""A progress line for long commands: units done, runs and their rate, findings so far, time left.

On a terminal the line redraws in place; in a CI log (not a terminal) it is printed as
a new line at most every `interval` seconds, so a log stays readable.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

BAR_WIDTH = 30


class Progress:
    def __init__(self, total: int, unit: str = "runs", stream: TextIO | None = None, interval: float = 10.0) -> None:
        self.total = total
        self.unit = unit
        self.stream = stream if stream is not None else sys.stderr
        self.interactive = self.stream.isatty()
        self.interval = 0.2 if self.interactive else interval
        self.started = time.monotonic()
        self._shown: float | None = None
        self.done = 0
        self.runs = 0
        self.findings = 0

    def advance(self, units: int = 1, runs: int = 0, findings: int = 0) -> None:
        self.done += units
        self.runs += runs
        self.findings += findings
        now = time.monotonic()
        if self._shown is None or now - self._shown >= self.interval or self.done >= self.total:
            self._shown = now
            self._draw(now)

    def line(self, now: float | None = None) -> str:
        elapsed = max((now if now is not None else time.monotonic()) - self.started, 1e-9)
        filled = int(BAR_WIDTH * self.done / self.total) if self.total else BAR_WIDTH
        left = elapsed * (self.total - self.done) / self.done if self.done else 0.0
        return (
            f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {self.done}/{self.total} {self.unit}, {self.runs} runs"
            f" ({self.runs / elapsed:.1f}/s), findings so far: {self.findings}, {_duration(elapsed)} elapsed, {_duration(left)} left"
        )

    def close(self) -> None:
        """End the line; on a terminal the cursor goes to the next line."""
        if self.interactive and self._shown is not None:
            self.stream.write("\n")
            self.stream.flush()

    def _draw(self, now: float) -> None:
        self.stream.write(("\r" if self.interactive else "") + self.line(now) + ("" if self.interactive else "\n"))
        self.stream.flush()


def _duration(seconds: float) -> str:
    minutes, seconds = divmod(int(seconds), 60)
    return f"{minutes}m{seconds:02d}s" if minutes else f"{seconds}s"
