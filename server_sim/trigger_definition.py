"""CREATE TRIGGER read into a TriggerDefinition.

sqlglot reads CREATE TRIGGER only as an opaque command, so the header (name, timing,
event, table, FOLLOWS/PRECEDES) is read here; a one-statement body is parsed with the
parser the caller passes (an INSERT, REPLACE, UPDATE or DELETE), `SET NEW.col = expr, ...`
as an UPDATE's SET clause, and a compound body is kept as text for compound/reader.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from .errors import ErrorCode, SqlError, not_supported
from .syntax import unquoted_name
from .statement import (
    ROW_STATEMENTS,
    RowVersion,
    Statement,
    TriggerDefinition,
    TriggerEvent,
    TriggerOrder,
    TriggerTiming,
    row_version,
)

_NAME = r"(?:`(?:[^`]|``)+`|\w+)"
_DEFINER = r"DEFINER\s*=\s*(?:CURRENT_USER(?:\s*\(\s*\))?|(?:`[^`]*`|'[^']*'|\"[^\"]*\"|[\w.%-]+)(?:\s*@\s*(?:`[^`]*`|'[^']*'|\"[^\"]*\"|[\w.%-]+))?)"
_CREATE_TRIGGER = re.compile(
    rf"^\s*CREATE\s+(?:{_DEFINER}\s+)?(?P<keyword>TRIGGER)\s+(?:(?P<db>{_NAME})\s*\.\s*)?(?P<name>{_NAME})\s+"
    rf"(?P<timing>BEFORE|AFTER)\s+(?P<event>INSERT|UPDATE|DELETE)\s+ON\s+(?:{_NAME}\s*\.\s*)?(?P<table>{_NAME})\s+"
    rf"FOR\s+EACH\s+ROW\s+(?:(?P<order>FOLLOWS|PRECEDES)\s+(?P<other>{_NAME})\s+)?(?P<body>.+)$",
    re.IGNORECASE | re.DOTALL,
)
CREATE_TRIGGER_START = re.compile(rf"^\s*CREATE\s+(?:{_DEFINER}\s+)?TRIGGER\b", re.IGNORECASE)
_SET_BODY = re.compile(r"^\s*SET\s+", re.IGNORECASE)
_COMPOUND_BODY = re.compile(r"^\s*(?:\w+\s*:\s*)?(?:BEGIN|IF|CASE|WHILE|REPEAT|LOOP)\b", re.IGNORECASE)


def parse_create_trigger(text: str, parse_body: Callable[[str], Statement]) -> TriggerDefinition:
    """Read a CREATE TRIGGER statement, its one-statement body with `parse_body`; raises
    1064 on a malformed one, 1235 on a body not modelled."""
    match = _CREATE_TRIGGER.match(text)
    if match is None:
        raise SqlError(ErrorCode.ER_PARSE_ERROR, f"CREATE TRIGGER needs `name {{BEFORE|AFTER}} {{INSERT|UPDATE|DELETE}} ON table FOR EACH ROW statement` (statement: {text!r})")
    body_text = match.group("body").strip()
    header = {
        "name": unquoted_name(match.group("name")),
        "timing": TriggerTiming(match.group("timing").upper()),
        "event": TriggerEvent(match.group("event").upper()),
        "table": unquoted_name(match.group("table")),
        "sql": text,
        "body_start": match.start("keyword"),
        "order": TriggerOrder(match.group("order").upper()) if match.group("order") else None,
        "other": unquoted_name(match.group("other")) if match.group("other") else None,
    }
    if _COMPOUND_BODY.match(body_text):
        return TriggerDefinition(**header, compound=body_text)  # read by compound/reader.py when it runs
    if _SET_BODY.match(body_text):
        definition = TriggerDefinition(**header, assignments=_new_row_assignments(body_text))
    else:
        body = parse_body(body_text)
        if body.kind not in ROW_STATEMENTS:
            raise not_supported(f"trigger body {body_text!r} (the simulator models one INSERT, REPLACE, UPDATE, DELETE or SET NEW.col = ...)")
        definition = TriggerDefinition(**header, body=body)
    definition.check()
    return definition


def _new_row_assignments(body_text: str) -> tuple[tuple[str, exp.Expression], ...]:
    """A `SET NEW.col = expr, ...` body, read as the SET clause of an UPDATE."""
    source = "UPDATE _trigger_row " + body_text
    try:
        trees = [tree for tree in sqlglot.parse(source, read="mysql") if tree is not None]
    except (ParseError, TokenError) as error:
        raise SqlError(ErrorCode.ER_PARSE_ERROR, f"{str(error).splitlines()[0]} (trigger body: {body_text!r})") from None
    if len(trees) != 1:
        raise not_supported(f"trigger body {body_text!r} (BEGIN ... END and compound bodies)")
    assignments = []
    for item in trees[0].expressions:
        target = item.this if isinstance(item, exp.EQ) else None
        if not isinstance(target, exp.Column) or row_version(target) is None:
            raise not_supported(f"trigger body {body_text!r} (a SET body assigns NEW.column only)")
        if row_version(target) is RowVersion.OLD:
            raise SqlError(ErrorCode.ER_TRG_CANT_CHANGE_ROW, "OLD", "")
        assignments.append((target.name, item.expression))
    return tuple(assignments)
