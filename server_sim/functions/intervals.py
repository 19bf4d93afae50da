"""MySQL's `INTERVAL expr unit`, as DATE_ADD, DATE_SUB, ADDDATE, SUBDATE, TIMESTAMPADD
and `d + INTERVAL ...` read it: every unit, simple (`INTERVAL 3 DAY`) and compound
(`INTERVAL '1:30' MINUTE_SECOND`), months added with the day clipped to the month's end.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal, InvalidOperation

from .unmodelled import Unmodelled

# The units whose result from a DATE is a DATE.
DATE_UNITS = frozenset({"YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "YEAR_MONTH"})
# Each compound unit's fields, most significant first.
_COMPOUND = {
    "YEAR_MONTH": ("YEAR", "MONTH"),
    "DAY_HOUR": ("DAY", "HOUR"),
    "DAY_MINUTE": ("DAY", "HOUR", "MINUTE"),
    "DAY_SECOND": ("DAY", "HOUR", "MINUTE", "SECOND"),
    "DAY_MICROSECOND": ("DAY", "HOUR", "MINUTE", "SECOND", "MICROSECOND"),
    "HOUR_MINUTE": ("HOUR", "MINUTE"),
    "HOUR_SECOND": ("HOUR", "MINUTE", "SECOND"),
    "HOUR_MICROSECOND": ("HOUR", "MINUTE", "SECOND", "MICROSECOND"),
    "MINUTE_SECOND": ("MINUTE", "SECOND"),
    "MINUTE_MICROSECOND": ("MINUTE", "SECOND", "MICROSECOND"),
    "SECOND_MICROSECOND": ("SECOND", "MICROSECOND"),
}
_SIMPLE = {"YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND", "MICROSECOND"}


def interval_fields(amount: str, unit: str) -> dict[str, int]:
    """The amount of each field an interval adds (negative for a negative interval)."""
    if unit in _SIMPLE:
        try:
            number = Decimal(amount.strip())
        except InvalidOperation:
            raise Unmodelled(f"INTERVAL {amount!r} {unit}: the server reads it with a warning") from None
        if number == number.to_integral_value():
            return {unit: int(number)}
        if unit == "SECOND":
            return {"SECOND": int(number), "MICROSECOND": int((number - int(number)) * 1_000_000)}
        raise Unmodelled(f"INTERVAL {amount} {unit} (a fractional amount of a unit other than SECOND)")
    if unit not in _COMPOUND:
        raise Unmodelled(f"INTERVAL ... {unit}")
    names = _COMPOUND[unit]
    text = amount.strip()
    negative = text.startswith("-")
    groups = re.findall(r"\d+", text)
    if not groups or len(groups) > len(names):
        raise Unmodelled(f"INTERVAL {amount!r} {unit}: the server reads it with a warning")
    if names[-1] == "MICROSECOND" and len(groups) == len(names):
        groups[-1] = groups[-1][:6].ljust(6, "0")
    fields = dict(zip(names[len(names) - len(groups) :], (int(group) for group in groups)))
    return {name: -value if negative else value for name, value in fields.items()}


def add_months(value: dt.datetime, months: int) -> dt.datetime:
    total = value.year * 12 + value.month - 1 + months
    year, month = divmod(total, 12)
    if not 0 < year <= 9999:
        raise Unmodelled("DATE_ADD() beyond year 9999 or before year 1 (NULL with a warning on the server)")
    following = dt.date(year + 1, 1, 1) if month == 11 else dt.date(year, month + 2, 1)
    last = (following - dt.timedelta(days=1)).day
    return value.replace(year=year, month=month + 1, day=min(value.day, last))


def add_interval(value: dt.datetime, amount: str, unit: str, sign: int) -> dt.datetime:
    """`value` plus (sign 1) or minus (sign -1) `INTERVAL amount unit`."""
    fields = {name: sign * number for name, number in interval_fields(amount, unit.upper()).items()}
    months = fields.get("YEAR", 0) * 12 + fields.get("QUARTER", 0) * 3 + fields.get("MONTH", 0)
    if months:
        value = add_months(value, months)
    delta = dt.timedelta(
        weeks=fields.get("WEEK", 0), days=fields.get("DAY", 0), hours=fields.get("HOUR", 0),
        minutes=fields.get("MINUTE", 0), seconds=fields.get("SECOND", 0), microseconds=fields.get("MICROSECOND", 0),
    )
    try:
        return value + delta
    except OverflowError:
        raise Unmodelled("DATE_ADD() beyond year 9999 or before year 1 (NULL with a warning on the server)") from None
