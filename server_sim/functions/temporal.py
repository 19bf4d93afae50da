"""MySQL's temporal values as its date and time functions read and write them: the text
of a date or datetime (what DuckDB's CAST(... AS VARCHAR) gives of a DATE or TIMESTAMP
value, or a string literal), DATE_FORMAT's and STR_TO_DATE's specifiers, and the week
numbering of sql_time.cc `calc_week`. Text the server would read with a warning (an
invalid or zero date, another layout) is refused, never read differently.
"""

from __future__ import annotations

import datetime as dt
import re

from .unmodelled import Unmodelled

_DATETIME = re.compile(r"^\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,6})\d*)?)?)?\s*$")
_DIGITS = re.compile(r"^\s*(\d{4})(\d\d)(\d\d)(?:(\d\d)(\d\d)(\d\d))?\s*$")
_TIME = re.compile(r"^\s*(-)?(\d{1,3}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,6})\d*)?)?\s*$")

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December")

# calc_week's behaviour bits (sql_time.h).
MONDAY_FIRST, WEEK_YEAR, FIRST_WEEKDAY = 1, 2, 4


def parse(text: str, function: str) -> tuple[dt.datetime, bool]:
    """A date or datetime text as (value, whether it has a time part)."""
    match = _DATETIME.match(text) or _DIGITS.match(text)
    if match is None:
        raise Unmodelled(f"{function}() of {text!r}: the server reads it with a warning (1292)")
    year, month, day, hour, minute, second, fraction = (list(match.groups()) + [None])[:7]
    try:
        value = dt.datetime(
            int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0), int((fraction or "0").ljust(6, "0"))
        )
    except ValueError:
        raise Unmodelled(f"{function}() of {text!r}: a zero or invalid date (the server warns 1292)") from None
    return value, hour is not None


def parse_datetime(text: str, function: str) -> dt.datetime:
    return parse(text, function)[0]


def parse_time(text: str, function: str) -> dt.timedelta:
    """A TIME text (or a datetime's time part), as the duration MySQL's TIME holds."""
    match = _TIME.match(text)
    if match is None:
        value, _ = parse(text, function)
        return dt.timedelta(hours=value.hour, minutes=value.minute, seconds=value.second, microseconds=value.microsecond)
    sign, hours, minutes, seconds, fraction = match.groups()
    duration = dt.timedelta(hours=int(hours), minutes=int(minutes), seconds=int(seconds or 0), microseconds=int((fraction or "0").ljust(6, "0")))
    return -duration if sign else duration


def day_number(day: dt.date) -> int:
    """sql_time.cc calc_daynr: days since year 0 (TO_DAYS)."""
    return day.toordinal() + 365


def _weekday(daynr: int, sunday_first: bool) -> int:
    return (daynr + 5 + int(sunday_first)) % 7


def _days_in_year(year: int) -> int:
    return 366 if (year % 4 == 0 and year % 100 != 0) or year % 400 == 0 else 365


def week_mode(mode: int) -> int:
    """sql_time.cc week_mode: WEEK()'s mode as calc_week's behaviour bits."""
    behaviour = mode & 7
    if not behaviour & MONDAY_FIRST:
        behaviour ^= FIRST_WEEKDAY
    return behaviour


def calc_week(day: dt.date, behaviour: int) -> tuple[int, int]:
    """sql_time.cc calc_week: (week number, the year it belongs to)."""
    daynr, first_daynr = day_number(day), day_number(dt.date(day.year, 1, 1))
    monday_first, week_year, first_weekday = bool(behaviour & MONDAY_FIRST), bool(behaviour & WEEK_YEAR), bool(behaviour & FIRST_WEEKDAY)
    weekday = _weekday(first_daynr, not monday_first)
    year = day.year
    if day.month == 1 and day.day <= 7 - weekday:
        if not week_year and ((first_weekday and weekday != 0) or (not first_weekday and weekday >= 4)):
            return 0, year
        week_year = True
        year -= 1
        days = _days_in_year(year)
        first_daynr -= days
        weekday = (weekday + 53 * 7 - days) % 7
    if (first_weekday and weekday != 0) or (not first_weekday and weekday >= 4):
        days = daynr - (first_daynr + (7 - weekday))
    else:
        days = daynr - (first_daynr - weekday)
    if week_year and days >= 52 * 7:
        weekday = (weekday + _days_in_year(year)) % 7
        if (not first_weekday and weekday < 4) or (first_weekday and weekday == 0):
            return 1, year + 1
    return days // 7 + 1, year


def _ordinal(day: int) -> str:
    if 10 < day % 100 < 14:
        return f"{day}th"
    return f"{day}" + {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def _twelve(hour: int) -> int:
    return (hour + 11) % 12 + 1


_SPECIFIERS = {
    "a": lambda t: WEEKDAYS[t.weekday()][:3],
    "b": lambda t: MONTHS[t.month - 1][:3],
    "c": lambda t: str(t.month),
    "D": lambda t: _ordinal(t.day),
    "d": lambda t: f"{t.day:02d}",
    "e": lambda t: str(t.day),
    "f": lambda t: f"{t.microsecond:06d}",
    "H": lambda t: f"{t.hour:02d}",
    "h": lambda t: f"{_twelve(t.hour):02d}",
    "I": lambda t: f"{_twelve(t.hour):02d}",
    "i": lambda t: f"{t.minute:02d}",
    "j": lambda t: f"{t.timetuple().tm_yday:03d}",
    "k": lambda t: str(t.hour),
    "l": lambda t: str(_twelve(t.hour)),
    "M": lambda t: MONTHS[t.month - 1],
    "m": lambda t: f"{t.month:02d}",
    "p": lambda t: "AM" if t.hour < 12 else "PM",
    "r": lambda t: f"{_twelve(t.hour):02d}:{t.minute:02d}:{t.second:02d} {'AM' if t.hour < 12 else 'PM'}",
    "S": lambda t: f"{t.second:02d}",
    "s": lambda t: f"{t.second:02d}",
    "T": lambda t: f"{t.hour:02d}:{t.minute:02d}:{t.second:02d}",
    "U": lambda t: f"{calc_week(t.date(), FIRST_WEEKDAY)[0]:02d}",
    "u": lambda t: f"{calc_week(t.date(), MONDAY_FIRST)[0]:02d}",
    "V": lambda t: f"{calc_week(t.date(), WEEK_YEAR | FIRST_WEEKDAY)[0]:02d}",
    "v": lambda t: f"{calc_week(t.date(), WEEK_YEAR | MONDAY_FIRST)[0]:02d}",
    "W": lambda t: WEEKDAYS[t.weekday()],
    "w": lambda t: str((t.weekday() + 1) % 7),
    "X": lambda t: f"{calc_week(t.date(), WEEK_YEAR | FIRST_WEEKDAY)[1]:04d}",
    "x": lambda t: f"{calc_week(t.date(), WEEK_YEAR | MONDAY_FIRST)[1]:04d}",
    "Y": lambda t: f"{t.year:04d}",
    "y": lambda t: f"{t.year % 100:02d}",
}


def date_format(text: str, layout: str) -> str:
    """DATE_FORMAT(t, format): each %x its specifier's text, %% a '%', % and any other
    character that character."""
    value = parse_datetime(text, "DATE_FORMAT")
    out, index = [], 0
    while index < len(layout):
        char = layout[index]
        if char == "%" and index + 1 < len(layout):
            spec = layout[index + 1]
            out.append(_SPECIFIERS[spec](value) if spec in _SPECIFIERS else spec)
            index += 2
        else:
            out.append(char)
            index += 1
    return "".join(out)


# STR_TO_DATE's specifiers: the pattern of the text each reads, and the field it sets.
_READ = {
    "Y": (r"\d{4}", "year"), "y": (r"\d{2}", "year2"), "m": (r"\d{1,2}", "month"), "c": (r"\d{1,2}", "month"),
    "d": (r"\d{1,2}", "day"), "e": (r"\d{1,2}", "day"), "H": (r"\d{1,2}", "hour"), "k": (r"\d{1,2}", "hour"),
    "h": (r"\d{1,2}", "hour12"), "I": (r"\d{1,2}", "hour12"), "l": (r"\d{1,2}", "hour12"), "i": (r"\d{1,2}", "minute"),
    "s": (r"\d{1,2}", "second"), "S": (r"\d{1,2}", "second"), "f": (r"\d{1,6}", "fraction"), "p": (r"AM|PM|am|pm", "ampm"),
    "M": ("|".join(MONTHS), "month_name"), "b": ("|".join(name[:3] for name in MONTHS), "month_abbr"),
}
_TIME_FIELDS = {"hour", "hour12", "minute", "second", "fraction", "ampm"}
_EXPANSIONS = {"T": "%H:%i:%s", "r": "%I:%i:%S %p"}


def str_to_date_has_time(layout: str) -> bool:
    """Whether STR_TO_DATE with this format gives a DATETIME (it reads a time) or a DATE."""
    fields = _fields(layout)
    if not fields & {"year", "year2", "month", "day", "month_name", "month_abbr"}:
        raise Unmodelled(f"STR_TO_DATE() with the format {layout!r} (a TIME result)")
    return bool(fields & _TIME_FIELDS)


def _fields(layout: str) -> set[str]:
    for short, long in _EXPANSIONS.items():
        layout = layout.replace("%" + short, long)
    fields = set()
    for spec in re.findall(r"%(.)", layout):
        if spec in _READ:
            fields.add(_READ[spec][1])
        elif spec != "%":
            raise Unmodelled(f"STR_TO_DATE() with the specifier %{spec}")
    return fields


def str_to_date(text: str, layout: str) -> dt.datetime:
    """STR_TO_DATE(s, format) for the specifiers of _READ; text it does not match (which
    the server answers NULL with a warning) is refused."""
    for short, long in _EXPANSIONS.items():
        layout = layout.replace("%" + short, long)
    pattern, names = "", []
    for index, piece in enumerate(re.split(r"(%.)", layout)):
        if index % 2 and piece[1] in _READ:
            pattern += f"({_READ[piece[1]][0]})"
            names.append(_READ[piece[1]][1])
        else:
            pattern += re.escape(piece[1] if index % 2 else piece)
    match = re.fullmatch(r"\s*" + pattern + r"\s*", text, re.IGNORECASE)
    if match is None:
        raise Unmodelled(f"STR_TO_DATE({text!r}, {layout!r}): text the format does not read (the server warns)")
    found = dict(zip(names, match.groups()))
    return _assembled(found, text)


def _assembled(found: dict[str, str], text: str) -> dt.datetime:
    year = int(found["year"]) if "year" in found else (2000 + int(found["year2"]) if int(found.get("year2", 0)) < 70 else 1900 + int(found["year2"])) if "year2" in found else 0
    if "month_name" in found or "month_abbr" in found:
        name = (found.get("month_name") or found["month_abbr"]).lower()
        month = next(i for i, m in enumerate(MONTHS, 1) if m.lower().startswith(name))
    else:
        month = int(found.get("month", 0))
    hour = int(found.get("hour", 0))
    if "hour12" in found:
        hour = int(found["hour12"]) % 12 + (12 if found.get("ampm", "AM").upper() == "PM" else 0)
    try:
        return dt.datetime(
            year, month, int(found.get("day", 0)), hour, int(found.get("minute", 0)), int(found.get("second", 0)), int(found.get("fraction", "0").ljust(6, "0"))
        )
    except ValueError:
        raise Unmodelled(f"STR_TO_DATE() of {text!r}: a zero or invalid date") from None
