"""What a long command tells the person waiting, on stderr: a progress line (units done of
the total, runs and their rate, findings so far, time elapsed and left) and one-line notes.

On a terminal the line redraws in place; in a CI log (not a terminal) it is printed as
a new line at most every `interval` seconds, so a log stays readable.
"""

from __future__ import annotations

import io
import sys
import time
from collections.abc import Callable
from typing import TextIO

BAR_WIDTH = 30
# An estimate of the time left is shown only once it means something: the first units
# carry the start-up costs (workers forking, the first parse of each statement, DuckDB
# databases opened), so a rate measured over a handful of them, or over less than a few
# seconds, swings by a factor of two or more from one redraw to the next. Until then the
# line says "estimating"; a command done in less than ESTIMATE_AFTER_SECONDS never shows one.
ESTIMATE_AFTER_FRACTION = 0.05
ESTIMATE_AFTER_SECONDS = 3.0


class Progress:
    """One progress line. `unit` is what `total` counts; when it counts something other
    than runs (fuzz's workloads), the runs are counted too; `findings` adds fuzz's count."""

    def __init__(
        self,
        total: int,
        unit: str = "runs",
        stream: TextIO | None = None,
        interval: float = 10.0,
        label: str = "",
        findings: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total = total
        self.unit = unit
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.interactive = _isatty(self.stream)
        self.interval = 0.2 if self.interactive else interval
        self.show_findings = unit != "runs" if findings is None else findings
        self.clock = clock
        self.started = clock()
        self._shown: float | None = None
        self._width = 0
        self._closed = False
        self.done = 0
        self.runs = 0
        self.findings = 0

    def advance(self, units: int = 1, runs: int = 0, findings: int = 0) -> None:
        self.done += units
        self.runs += runs if self.unit != "runs" else units
        self.findings += findings
        now = self.clock()
        if self._shown is None or now - self._shown >= self.interval or self.done >= self.total:
            self._shown = now
            self._draw(now)

    def line(self, now: float | None = None) -> str:
        elapsed = max((now if now is not None else self.clock()) - self.started, 1e-9)
        filled = min(BAR_WIDTH, int(BAR_WIDTH * self.done / self.total)) if self.total else BAR_WIDTH
        parts = [f"{self.label}: " if self.label else "", f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {self.done}/{self.total} {self.unit}"]
        if self.unit != "runs":
            parts.append(f", {self.runs} runs")
        if self.runs:
            parts.append(f" ({self.runs / elapsed:.1f}/s)" if self.unit != "runs" else f", {self.runs / elapsed:.1f}/s")
        if self.show_findings:
            parts.append(f", findings so far: {self.findings}")
        parts.append(f", {_duration(elapsed)} elapsed")
        if self.done < self.total:
            parts.append(f", {self.left(elapsed)}")
        return "".join(parts)

    def left(self, elapsed: float) -> str:
        """`12s left` from the rate so far, or `estimating` while the rate means little."""
        if self.done < self.total * ESTIMATE_AFTER_FRACTION or self.done == 0 or elapsed < ESTIMATE_AFTER_SECONDS:
            return "estimating"
        return f"{_duration(elapsed * (self.total - self.done) / self.done)} left"

    def close(self) -> None:
        """End the line; on a terminal the cursor goes to the next line. Closing twice is harmless."""
        if self.interactive and self._shown is not None and not self._closed:
            self.stream.write("\n")
            self.stream.flush()
        self._closed = True

    def _draw(self, now: float) -> None:
        text = self.line(now)
        if self.interactive:
            # A shorter line than the last one would leave the last one's tail on screen.
            self.stream.write("\r" + text.ljust(self._width))
            self._width = len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()


class Console:
    """A command's messages to the person waiting: notes, and a progress line per phase of
    runs (the simulator's, the real server's), each line closed before the next message."""

    def __init__(self, stream: TextIO | None = None, interval: float = 10.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self.clock = clock
        self._line: Progress | None = None

    @classmethod
    def silent(cls) -> Console:
        """A console nobody reads: for callers that asked for no messages."""
        return cls(io.StringIO())

    def note(self, text: str) -> None:
        self._end_line()
        self.stream.write(f"{text}\n")
        self.stream.flush()

    def runs(self, label: str) -> Callable[[int, int], None]:
        """A feed for `suite.simulate`'s `progress`: (done, total), a line labelled `label`."""

        def feed(done: int, total: int) -> None:
            if total == 0:
                return
            if self._line is None or self._line.label != label:
                self._end_line()
                self._line = Progress(total, label=label, stream=self.stream, interval=self.interval, clock=self.clock)
            line = self._line
            line.advance(done - line.done)
            if done >= total:
                self._end_line()

        return feed

    def close(self) -> None:
        self._end_line()

    def _end_line(self) -> None:
        if self._line is not None:
            self._line.close()
            self._line = None


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False


def _duration(seconds: float) -> str:
    minutes, seconds = divmod(int(seconds), 60)
    return f"{minutes}m{seconds:02d}s" if minutes else f"{seconds}s"
