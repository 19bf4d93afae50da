"""JSON basics over JSON text (the catalog stores JSON as text): JSON_VALID, JSON_LENGTH,
JSON_EXTRACT and `->`, JSON_UNQUOTE and `->>`, JSON_TYPE. Paths are `$`, `.key`, `."key"`
and `[n]`; wildcards and ranges are refused. MySQL prints a JSON value normalized
(`[1, 2]`, `{"a": 1}` with keys by length then bytes); MariaDB returns the text of the
document as written, so a non-scalar result or a number that prints differently is
refused under MariaDB. Invalid JSON is refused (MySQL errors 3141, MariaDB warns).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from sqlglot import exp

from ..errors import not_supported
from .library import SqlFunction, Translating
from .native import TEXT, native
from .unmodelled import Unmodelled

_STEP = re.compile(r'\.(?:"((?:[^"\\]|\\.)*)"|([A-Za-z_$][A-Za-z0-9_$]*))|\[(\d+)\]')
_MISSING = object()


def _document(text: str, function: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        raise Unmodelled(f"{function}() of invalid JSON text (MySQL 3141, MariaDB a warning)") from None


def _steps(path: str, function: str) -> list[str | int]:
    text = path.strip()
    if not text.startswith("$"):
        raise Unmodelled(f"{function}() of the path {path!r} (an invalid path)")
    steps: list[str | int] = []
    index = 1
    while index < len(text):
        match = _STEP.match(text, index)
        if match is None:
            raise Unmodelled(f"{function}() of the path {path!r}")
        quoted, plain, position = match.groups()
        steps.append(int(position) if position is not None else (json.loads(f'"{quoted}"') if quoted is not None else plain))
        index = match.end()
    return steps


def _find(document: object, steps: list[str | int]) -> object:
    value = document
    for step in steps:
        if isinstance(step, int):
            if not isinstance(value, list):
                value = [value]  # MySQL: a scalar is an array of itself at [0]
            if step >= len(value):
                return _MISSING
            value = value[step]
        elif isinstance(value, dict) and step in value:
            value = value[step]
        else:
            return _MISSING
    return value


def mysql_text(value: object) -> str:
    """A JSON value as MySQL prints it: `, ` and `: ` separators, object keys by length then bytes."""
    if isinstance(value, dict):
        keys = sorted(value, key=lambda key: (len(key.encode()), key.encode()))
        return "{" + ", ".join(f"{json.dumps(key, ensure_ascii=False)}: {mysql_text(value[key])}" for key in keys) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(mysql_text(item) for item in value) + "]"
    if isinstance(value, float):
        raise Unmodelled("a JSON number with a fraction (printed as a DOUBLE)")
    return json.dumps(value, ensure_ascii=False)


def json_length(text: str, path: str | None = None) -> int | None:
    value = _document(text, "JSON_LENGTH")
    if path is not None:
        value = _find(value, _steps(path, "JSON_LENGTH"))
        if value is _MISSING:
            return None
    return len(value) if isinstance(value, (list, dict)) else 1


def json_extract(text: str, path: str, flavor_prints_as_written: bool) -> str | None:
    value = _find(_document(text, "JSON_EXTRACT"), _steps(path, "JSON_EXTRACT"))
    if value is _MISSING:
        return None
    if flavor_prints_as_written and (isinstance(value, (list, dict, float)) or (isinstance(value, str) and not value.isascii())):
        raise Unmodelled("JSON_EXTRACT() of an array, an object or a number with a fraction (MariaDB prints the document's own text)")
    return mysql_text(value)


def json_unquote(text: str) -> str:
    """JSON_UNQUOTE(s): the string a JSON string literal stands for; other text as it is."""
    if len(text) >= 2 and text.startswith('"') and text.endswith('"'):
        try:
            value = json.loads(text)
        except ValueError:
            raise Unmodelled("JSON_UNQUOTE() of an invalid JSON string") from None
        return value if isinstance(value, str) else text
    return text


def json_type(text: str) -> str:
    value = _document(text, "JSON_TYPE")
    if isinstance(value, bool):
        return "BOOLEAN"
    if value is None:
        return "NULL"
    return {dict: "OBJECT", list: "ARRAY", str: "STRING", int: "INTEGER", float: "DOUBLE"}[type(value)]


def json_valid(text: str, warns: bool) -> int:
    """JSON_VALID(s): 1 or 0; MariaDB adds a Note (4038) for invalid text, which is refused."""
    try:
        json.loads(text)
    except ValueError:
        if warns:
            raise Unmodelled("JSON_VALID() of invalid JSON text (MariaDB adds Note 4038)") from None
        return 0
    return 1


_VALID_QUIET = native("JSON_VALID_QUIET", lambda text: json_valid(text, False), [TEXT], "BIGINT", exposed=False)
_VALID_NOTED = native("JSON_VALID_NOTED", lambda text: json_valid(text, True), [TEXT], "BIGINT", exposed=False)


def _valid(node: exp.Expression, translation: Translating) -> exp.Expression:
    entry = _VALID_NOTED if translation.context.flavor.json_prints_as_written else _VALID_QUIET
    return entry.duckdb(node, translation)  # type: ignore[misc]


_EXTRACT_MYSQL = native("JSON_EXTRACT_MYSQL", lambda text, path: json_extract(text, path, False), [TEXT, TEXT], "VARCHAR", exposed=False)
_EXTRACT_MARIADB = native("JSON_EXTRACT_MARIADB", lambda text, path: json_extract(text, path, True), [TEXT, TEXT], "VARCHAR", exposed=False)
_UNQUOTE = native("JSON_UNQUOTE", json_unquote, [TEXT], "VARCHAR")


def _path_of(node: exp.Expression) -> exp.Expression:
    """The path argument: `->`'s JSONPath node as the text it was written as."""
    path = node.expression
    if isinstance(path, exp.JSONPath):
        return exp.Literal.string(path.sql(dialect="mysql").strip("'"))
    return path


def _extract(unquote: bool) -> Callable[[exp.Expression, Translating], exp.Expression]:
    def translate(node: exp.Expression, translation: Translating) -> exp.Expression:
        arrow = "only_json_types" in node.args  # sqlglot marks `->` and `->>` so
        if arrow and not translation.context.flavor.json_arrow_operators:
            raise not_supported("the -> and ->> operators, which this server does not have (its parser says 1064)")
        arguments = list(node.expressions) if isinstance(node, exp.Anonymous) else [node.this, _path_of(node)]
        if len(arguments) != 2:
            raise not_supported("JSON_EXTRACT() of several paths")
        entry = _EXTRACT_MARIADB if translation.context.flavor.json_prints_as_written else _EXTRACT_MYSQL
        extracted = entry.duckdb(exp.Anonymous(this="JSON_EXTRACT", expressions=arguments), translation)  # type: ignore[misc]
        if not unquote:
            return extracted
        return exp.Anonymous(this=_UNQUOTE_CALL, expressions=[extracted])

    return translate


_UNQUOTE_CALL = "rpl_fn_json_unquote"

JSON_FUNCTIONS: tuple[SqlFunction, ...] = (
    SqlFunction(names=("JSON_VALID",), duckdb=_valid),
    native("JSON_LENGTH", json_length, [TEXT, TEXT], "BIGINT", optional=1),
    native("JSON_TYPE", json_type, [TEXT], "VARCHAR", nodes=(exp.JSONType,), arguments=lambda node: [node.this]),
    _UNQUOTE,
    SqlFunction(names=("JSON_EXTRACT",), nodes=(exp.JSONExtract,), duckdb=_extract(unquote=False)),
    SqlFunction(nodes=(exp.JSONExtractScalar,), duckdb=_extract(unquote=True)),
)
