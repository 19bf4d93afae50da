"""The one signal of the fast path: Python cannot answer exactly as DuckDB would.

Raised by the collation (text it cannot compare), the expression compiler and the
scans over the storage's mirror; whoever catches it asks DuckDB instead. It has a module
of its own so that the collation and the compiler share it without importing each other.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class Declined(Exception):
    """Python cannot evaluate this exactly as DuckDB would: DuckDB answers instead."""


def none_when_declined(function: Callable[..., T]) -> Callable[..., T | None]:
    """The function answering None where it declines: its caller asks DuckDB instead."""

    @functools.wraps(function)
    def answer(*arguments: object, **keywords: object) -> T | None:
        try:
            return function(*arguments, **keywords)
        except Declined:
            return None

    return answer
