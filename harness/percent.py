"""Agreement rates as people read them: two decimals, rounded down, so a rate reads
100.00 % only when everything agreed (2147 of 2148 is 99.95 %, never 100.00 %), and
`n/a` when nothing was compared (0 of 0 is no evidence, not perfection)."""

from __future__ import annotations

NOT_APPLICABLE = "n/a"


def percent(agreed: int, compared: int) -> str:
    """`agreed` of `compared` as `99.95 %`: exact integer arithmetic, rounded down."""
    if compared == 0:
        return NOT_APPLICABLE
    hundredths = agreed * 10_000 // compared
    return f"{hundredths // 100}.{hundredths % 100:02d} %"


def rate(agreed: int, compared: int) -> float | None:
    """`agreed / compared`, unrounded (1.0 only when everything agreed); None for 0 of 0."""
    return agreed / compared if compared else None
