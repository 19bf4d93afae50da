"""MySQL's date and time functions, each written once in Python (native.py runs it on
either evaluator) over the temporal text of temporal.py. The simulated servers' system
time zone is UTC; a session time zone other than it is refused where a function reads it.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation

from sqlglot import exp
from sqlglot.dialects.mysql import MySQL

from ..declined import Declined
from ..errors import not_supported
from ..operands import Operand
from .intervals import DATE_UNITS, add_interval
from .library import Compiling, SqlFunction, Translating
from .native import INTEGER, TEMPORAL, TEXT, native
from .unmodelled import Unmodelled
from .statement import StatementContext
from .temporal import MONTHS, WEEKDAYS, calc_week, date_format, day_number, parse, parse_datetime, parse_time, str_to_date, str_to_date_has_time, week_mode

_UTC = dt.timezone.utc
_EPOCH = dt.datetime(1970, 1, 1)
_TIMESTAMP_RANGE = (dt.datetime(1970, 1, 1, 0, 0, 1), dt.datetime(2038, 1, 19, 3, 14, 7))
_UTC_NAMES = frozenset({"SYSTEM", "+00:00"})
_MYSQL = MySQL().generator()


def _mysql_format(node: exp.Expression) -> exp.Expression:
    """A format argument as MySQL wrote it: sqlglot keeps a literal format in its own notation."""
    layout = node.args.get("format")
    if isinstance(layout, exp.Literal) and layout.is_string:
        written = _MYSQL.format_time(node) or "''"  # a quoted SQL string
        return exp.Literal.string(written[1:-1].replace("''", "'"))
    return layout


def _unwrapped(node: exp.Expression | None, wrapper: type[exp.Expression]) -> exp.Expression | None:
    """An argument without the conversion sqlglot wraps a MySQL date argument in."""
    return node.this if isinstance(node, wrapper) else node


def _unit(node: exp.Expression) -> str:
    unit = node.args.get("unit")
    return (unit.name if unit is not None else "DAY").upper()


def _in_utc(context: StatementContext, function: str) -> None:
    """Refuse a function that reads the session time zone unless it is the system's (UTC)."""
    value = context.system_variable("time_zone", None)
    if str(value).upper() not in _UTC_NAMES:
        raise not_supported(f"{function}() under time_zone {value!r} (the simulated system time zone is UTC)")


# -- values of a date ---------------------------------------------------------------------


def _date_part(name: str, read: Callable[[dt.datetime], int], node: type[exp.Expression] | None = None, aliases: tuple[str, ...] = ()) -> SqlFunction:
    return native(
        name, lambda text: read(parse_datetime(text, name)), [TEMPORAL], "BIGINT",
        nodes=(node,) if node else (), arguments=lambda call: [_unwrapped(call.this, exp.TsOrDsToDate)] if not isinstance(call, exp.Anonymous) else list(call.expressions),
        aliases=aliases,
    )


def _time_part(name: str, read: Callable[[dt.timedelta], int], node: type[exp.Expression] | None = None) -> SqlFunction:
    return native(name, lambda text: read(abs(parse_time(text, name))), [TEMPORAL], "BIGINT", nodes=(node,) if node else (), arguments=(lambda call: [call.this]) if node else None)


def week(text: str, mode: int = 0) -> int:
    return calc_week(parse_datetime(text, "WEEK").date(), week_mode(mode))[0]


def year_week(text: str, mode: int = 0) -> int:
    number, year = calc_week(parse_datetime(text, "YEARWEEK").date(), week_mode(mode) | 2)
    return year * 100 + number


def last_day(text: str) -> dt.date:
    value = parse_datetime(text, "LAST_DAY")
    following = dt.date(value.year + value.month // 12, value.month % 12 + 1, 1)
    return following - dt.timedelta(days=1)


def time_of(text: str) -> dt.time:
    duration = parse_time(text, "TIME")
    if not dt.timedelta(0) <= duration < dt.timedelta(days=1):
        raise Unmodelled(f"TIME() of {text!r}: a TIME outside one day")
    return (dt.datetime.min + duration).time()


# -- arithmetic -----------------------------------------------------------------------------


def date_diff(first: str, second: str) -> int:
    return day_number(parse_datetime(first, "DATEDIFF").date()) - day_number(parse_datetime(second, "DATEDIFF").date())


def _months_between(begin: dt.datetime, end: dt.datetime) -> int:
    months = (end.year - begin.year) * 12 + end.month - begin.month
    rest_begin = (begin.day, begin.time())
    rest_end = (end.day, end.time())
    if months > 0 and rest_end < rest_begin:
        months -= 1
    elif months < 0 and rest_end > rest_begin:
        months += 1
    return months


_DIFF_SECONDS = {"MICROSECOND": Decimal("0.000001"), "SECOND": 1, "MINUTE": 60, "HOUR": 3600, "DAY": 86400, "WEEK": 604800}
_DIFF_MONTHS = {"MONTH": 1, "QUARTER": 3, "YEAR": 12}


def timestamp_diff(unit: str, begin_text: str, end_text: str) -> int:
    """TIMESTAMPDIFF(unit, begin, end): whole units from begin to end, truncated toward zero."""
    begin, end = parse_datetime(begin_text, "TIMESTAMPDIFF"), parse_datetime(end_text, "TIMESTAMPDIFF")
    if unit in _DIFF_MONTHS:
        return int(_months_between(begin, end) / _DIFF_MONTHS[unit])
    delta = end - begin
    microseconds = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
    if unit == "MICROSECOND":
        return microseconds
    size = int(_DIFF_SECONDS[unit]) * 1_000_000
    return abs(microseconds) // size * (1 if microseconds >= 0 else -1)


def _add_entry(name: str, node_types: tuple[type[exp.Expression], ...], parts: Callable[[exp.Expression], tuple[exp.Expression, exp.Expression, str, int]]) -> SqlFunction:
    """DATE_ADD and its kin: `parts` gives (value, amount, unit, sign) of a call. A DATE
    value with a date unit gives a DATE; anything else a DATETIME."""

    def translate(node: exp.Expression, translation: Translating) -> exp.Expression:
        value, amount, unit, sign = parts(node)
        arguments = [value, amount, exp.Literal.string(unit), exp.Literal.number(sign)]
        call = exp.Anonymous(this=name, expressions=arguments)
        stamp = _ADD_DATETIME.duckdb(call, translation)  # type: ignore[misc]
        if unit not in DATE_UNITS:
            return stamp
        if isinstance(value, exp.Literal):
            text = value.name
            return _ADD_DATE.duckdb(call, translation) if value.is_string and _date_only(text) else stamp  # type: ignore[misc]
        test = exp.EQ(this=exp.Anonymous(this="typeof", expressions=[translation.rewrite(value)]), expression=exp.Literal.string("DATE"))
        return exp.Case(ifs=[exp.If(this=test, true=_ADD_DATE.duckdb(call, translation))], default=stamp)  # type: ignore[misc]

    def evaluate(node: exp.Expression, compiler: Compiling) -> Operand:
        value, amount, unit, sign = parts(node)
        call = exp.Anonymous(this=name, expressions=[value, amount, exp.Literal.string(unit), exp.Literal.number(sign)])
        if unit in DATE_UNITS and not (isinstance(value, exp.Literal) and value.is_string and not _date_only(value.name)):
            raise Declined  # whether the value is a DATE is DuckDB's typing
        return _ADD_DATETIME.python(call, compiler)  # type: ignore[misc]

    return SqlFunction(names=(name,), nodes=node_types, duckdb=translate, python=evaluate)


def _date_only(text: str) -> bool:
    try:
        return not parse(text, "DATE_ADD")[1]
    except Unmodelled:
        return False


def _add(text: str, amount: str, unit: str, sign: int) -> dt.datetime:
    return add_interval(parse_datetime(text, "DATE_ADD"), amount, unit, sign)


def _add_date(text: str, amount: str, unit: str, sign: int) -> dt.date:
    value, has_time = parse(text, "DATE_ADD")
    if has_time:
        raise Unmodelled("DATE_ADD() of a DATE column holding a time")
    return add_interval(value, amount, unit, sign).date()


_ADD_DATETIME = native("DATE_ADD_DATETIME", _add, [TEMPORAL, TEXT, TEXT, INTEGER], "TIMESTAMP", exposed=False)
_ADD_DATE = native("DATE_ADD_DATE", _add_date, [TEMPORAL, TEXT, TEXT, INTEGER], "DATE", exposed=False)


def _interval_parts(value: exp.Expression, interval: exp.Expression, sign: int) -> tuple[exp.Expression, exp.Expression, str, int]:
    """ADDDATE(d, INTERVAL n unit) / ADDDATE(d, n) (days) / d + INTERVAL n unit."""
    if isinstance(interval, exp.Interval):
        return value, interval.this, _unit(interval), sign
    return value, interval, "DAY", sign


def _call_parts(sign: int) -> Callable[[exp.Expression], tuple[exp.Expression, exp.Expression, str, int]]:
    def parts(node: exp.Expression) -> tuple[exp.Expression, exp.Expression, str, int]:
        if isinstance(node, exp.Anonymous):
            if len(node.expressions) != 2:
                raise not_supported(f"{node.name.upper()}() with {len(node.expressions)} arguments")
            return _interval_parts(node.expressions[0], node.expressions[1], sign)
        if isinstance(node, exp.TimestampAdd):
            return node.this, node.expression, _unit(node), sign
        return node.this, node.expression, _unit(node), sign

    return parts


def interval_sum(node: exp.Expression) -> bool:
    """`d + INTERVAL n unit`, `INTERVAL n unit + d`, `d - INTERVAL n unit`."""
    return isinstance(node.expression, exp.Interval) or (isinstance(node, exp.Add) and isinstance(node.this, exp.Interval))


def _sum_parts(node: exp.Expression) -> tuple[exp.Expression, exp.Expression, str, int]:
    sign = -1 if isinstance(node, exp.Sub) else 1
    if isinstance(node.this, exp.Interval):
        return _interval_parts(node.expression, node.this, sign)
    return _interval_parts(node.this, node.expression, sign)


INTERVAL_SUM = _add_entry("DATE_ADD", (), _sum_parts)


# -- time zones -----------------------------------------------------------------------------

_OFFSET = re.compile(r"^([+-])(\d{1,2}):(\d{2})$")


def _zone(name: str) -> dt.timezone | None:
    """A time zone CONVERT_TZ reads: an offset (-12:59 .. +13:00), SYSTEM (UTC); a named
    zone is NULL, as on a server whose mysql.time_zone tables are empty (as installed)."""
    if name.upper() == "SYSTEM":
        return _UTC
    match = _OFFSET.match(name.strip())
    if match is None:
        return None
    sign, hours, minutes = match.groups()
    offset = dt.timedelta(hours=int(hours), minutes=int(minutes))
    if int(minutes) > 59 or not (-dt.timedelta(hours=12, minutes=59) <= (-offset if sign == "-" else offset) <= dt.timedelta(hours=13)):
        return None
    return dt.timezone(-offset if sign == "-" else offset)


def convert_tz(text: str, source: str, target: str) -> dt.datetime | None:
    """CONVERT_TZ(t, from, to): NULL for a zone it does not know; a value outside the
    TIMESTAMP range is returned unconverted."""
    value = parse_datetime(text, "CONVERT_TZ")
    from_zone, to_zone = _zone(source), _zone(target)
    if from_zone is None or to_zone is None:
        return None
    universal = value.replace(tzinfo=from_zone).astimezone(_UTC).replace(tzinfo=None)
    if not _TIMESTAMP_RANGE[0] <= universal.replace(microsecond=0) <= _TIMESTAMP_RANGE[1]:
        return value
    return value.replace(tzinfo=from_zone).astimezone(to_zone).replace(tzinfo=None)


def from_unixtime(seconds: str, maximum: int) -> dt.datetime | None:
    """FROM_UNIXTIME(n): the UTC datetime n seconds after the epoch; NULL before it or
    after the flavor's last second (`maximum`)."""
    try:
        number = Decimal(seconds)
    except InvalidOperation:
        raise Unmodelled(f"FROM_UNIXTIME() of {seconds!r}") from None
    if number != number.to_integral_value():
        raise Unmodelled("FROM_UNIXTIME() of a fractional value (a DATETIME with fractional seconds)")
    if number < 0 or number > maximum:
        return None
    return _EPOCH + dt.timedelta(seconds=int(number))


def unix_timestamp(text: str, maximum: int, zero_out_of_range: int) -> int | None:
    """UNIX_TIMESTAMP(t): seconds from the epoch to t in UTC; before the epoch or after the
    flavor's last second, 0 (MySQL) or NULL (MariaDB)."""
    value = parse_datetime(text, "UNIX_TIMESTAMP")
    if value.microsecond:
        raise Unmodelled("UNIX_TIMESTAMP() of a value with fractional seconds (a DECIMAL result)")
    seconds = (value - _EPOCH).days * 86400 + (value - _EPOCH).seconds
    if not 0 <= seconds <= maximum:
        return 0 if zero_out_of_range else None
    return seconds


_UNIX_TIMESTAMP = native("UNIX_TIMESTAMP_OF", unix_timestamp, [TEMPORAL, INTEGER, INTEGER], "BIGINT", exposed=False)
_FROM_UNIXTIME = native("FROM_UNIXTIME", from_unixtime, [TEXT, INTEGER], "TIMESTAMP", exposed=False)
_FROM_UNIXTIME_FORMAT = native(
    "FROM_UNIXTIME_FORMAT", lambda seconds, layout, maximum: _formatted(from_unixtime(seconds, maximum), layout), [TEXT, TEXT, INTEGER], "VARCHAR", exposed=False
)


def _flavored(entry: SqlFunction, arguments: list[exp.Expression], translation: Translating, *flavor_values: int) -> exp.Expression:
    """A call of `entry` with the flavor's values as its last arguments."""
    values = [exp.Literal.number(value) for value in flavor_values]
    return entry.duckdb(exp.Anonymous(this="F", expressions=[*arguments, *values]), translation)  # type: ignore[misc]


def _unix_timestamp_of(node: exp.Expression, translation: Translating) -> exp.Expression:
    """UNIX_TIMESTAMP(t) within the flavor's range (the fast path declines it)."""
    _in_utc(translation.context, "UNIX_TIMESTAMP")
    flavor = translation.context.flavor
    return _flavored(_UNIX_TIMESTAMP, list(node.expressions), translation, flavor.unix_time_max, int(flavor.unix_timestamp_out_of_range == 0))


UNIX_TIMESTAMP_OF = SqlFunction(duckdb=_unix_timestamp_of)


def _formatted(value: dt.datetime | None, layout: str) -> str | None:
    return None if value is None else date_format(value.isoformat(sep=" "), layout)


def _from_unixtime(node: exp.Expression, translation: Translating) -> exp.Expression:
    """FROM_UNIXTIME(n[, format]) within the flavor's range (the fast path declines it)."""
    _in_utc(translation.context, "FROM_UNIXTIME")
    maximum = translation.context.flavor.unix_time_max
    if node.args.get("format") is None:
        return _flavored(_FROM_UNIXTIME, [node.this], translation, maximum)
    return _flavored(_FROM_UNIXTIME_FORMAT, [node.this, _mysql_format(node)], translation, maximum)


# -- STR_TO_DATE ----------------------------------------------------------------------------

_STR_TO_DATETIME = native("STR_TO_DATETIME", str_to_date, [TEXT, TEXT], "TIMESTAMP", exposed=False)
_STR_TO_DATE = native("STR_TO_DATE_ONLY", lambda text, layout: str_to_date(text, layout).date(), [TEXT, TEXT], "DATE", exposed=False)


def _str_to_date_entry() -> SqlFunction:
    """STR_TO_DATE(s, format): a DATETIME for a format that reads a time, else a DATE; the
    format must be a constant (the result's type depends on it)."""

    def chosen(node: exp.Expression) -> tuple[SqlFunction, exp.Expression]:
        layout = _mysql_format(node)
        if not isinstance(layout, exp.Literal):
            raise not_supported("STR_TO_DATE() with a format that is not a constant")
        entry = _STR_TO_DATETIME if str_to_date_has_time(layout.name) else _STR_TO_DATE
        return entry, exp.Anonymous(this="STR_TO_DATE", expressions=[node.this, layout])

    def translate(node: exp.Expression, translation: Translating) -> exp.Expression:
        try:
            entry, call = chosen(node)
        except Unmodelled as error:
            raise not_supported(error.what) from None
        return entry.duckdb(call, translation)  # type: ignore[misc]

    def evaluate(node: exp.Expression, compiler: Compiling) -> Operand:
        try:
            entry, call = chosen(node)
        except Unmodelled:
            raise Declined from None
        return entry.python(call, compiler)  # type: ignore[misc]

    return SqlFunction(names=("STR_TO_DATE",), nodes=(exp.StrToDate, exp.StrToTime), duckdb=translate, python=evaluate)


DATES: tuple[SqlFunction, ...] = (
    native("DATE_FORMAT", date_format, [TEMPORAL, TEXT], "VARCHAR", nodes=(exp.TimeToStr,), arguments=lambda node: [_unwrapped(node.this, exp.TsOrDsToTimestamp), _mysql_format(node)]),
    _str_to_date_entry(),
    _date_part("YEAR", lambda t: t.year, exp.Year),
    _date_part("MONTH", lambda t: t.month, exp.Month),
    _date_part("DAYOFMONTH", lambda t: t.day, exp.DayOfMonth),
    _date_part("DAY", lambda t: t.day, exp.Day),
    _date_part("DAYOFWEEK", lambda t: (t.weekday() + 1) % 7 + 1, exp.DayOfWeek),
    _date_part("DAYOFYEAR", lambda t: t.timetuple().tm_yday, exp.DayOfYear),
    _date_part("WEEKDAY", lambda t: t.weekday()),
    _date_part("QUARTER", lambda t: (t.month + 2) // 3, exp.Quarter),
    _date_part("WEEKOFYEAR", lambda t: calc_week(t.date(), week_mode(3))[0], exp.WeekOfYear),
    native("DAYNAME", lambda text: WEEKDAYS[parse_datetime(text, "DAYNAME").weekday()], [TEMPORAL], "VARCHAR", nodes=(exp.Dayname,), arguments=lambda node: [_unwrapped(node.this, exp.TsOrDsToDate)]),
    native("MONTHNAME", lambda text: MONTHS[parse_datetime(text, "MONTHNAME").month - 1], [TEMPORAL], "VARCHAR"),
    _time_part("HOUR", lambda d: d.days * 24 + d.seconds // 3600, exp.Hour),
    _time_part("MINUTE", lambda d: d.seconds // 60 % 60, exp.Minute),
    _time_part("SECOND", lambda d: d.seconds % 60, exp.Second),
    _time_part("MICROSECOND", lambda d: d.microseconds),
    native("WEEK", week, [TEMPORAL, INTEGER], "BIGINT", nodes=(exp.Week,), arguments=lambda node: [a for a in (_unwrapped(node.this, exp.TsOrDsToDate), node.args.get("mode")) if a is not None], optional=1),
    native("YEARWEEK", year_week, [TEMPORAL, INTEGER], "BIGINT", optional=1),
    native("LAST_DAY", last_day, [TEMPORAL], "DATE", nodes=(exp.LastDay,), arguments=lambda node: [node.this]),
    native("DATE", lambda text: parse_datetime(text, "DATE").date(), [TEMPORAL], "DATE", nodes=(exp.TsOrDsToDate,), arguments=lambda node: [node.this]),
    native("TIME", time_of, [TEMPORAL], "TIME", nodes=(exp.Time,), arguments=lambda node: [node.this]),
    native("DATEDIFF", date_diff, [TEMPORAL, TEMPORAL], "BIGINT", nodes=(exp.DateDiff,), arguments=lambda node: [node.this, node.expression]),
    native("TIMESTAMPDIFF", timestamp_diff, [TEXT, TEMPORAL, TEMPORAL], "BIGINT", nodes=(exp.TimestampDiff,), arguments=lambda node: [exp.Literal.string(_unit(node)), node.expression, node.this]),
    _add_entry("DATE_ADD", (exp.DateAdd,), _call_parts(1)),
    _add_entry("DATE_SUB", (exp.DateSub,), _call_parts(-1)),
    _add_entry("ADDDATE", (), _call_parts(1)),
    _add_entry("SUBDATE", (), _call_parts(-1)),
    _add_entry("TIMESTAMPADD", (exp.TimestampAdd,), _call_parts(1)),
    native("CONVERT_TZ", convert_tz, [TEMPORAL, TEXT, TEXT], "TIMESTAMP", nodes=(exp.ConvertTimezone,), arguments=lambda node: [node.args["timestamp"], node.args["source_tz"], node.args["target_tz"]]),
    SqlFunction(names=("FROM_UNIXTIME",), nodes=(exp.UnixToTime,), duckdb=_from_unixtime),
)
