"""A run's verdict with the lines that explain it: what the checker decides, and what
observations of a run (the simulator's or a real server's) record."""

from __future__ import annotations

from dataclasses import dataclass

from scenarios.model import Verdict


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    explanation: tuple[str, ...]
