"""The JSON column type, as each flavor has it.

MySQL 8.0 has a JSON type of its own: the text given is parsed (invalid text is error
3140), and the document is stored in MySQL's binary JSON, which a client reads back
normalised (`{"a": 1, "bb": [1, 2]}`: `: ` and `, ` separators, object keys by length
then bytes, a duplicate key's last value); the binlog carries the binary form (type 245).
The catalog holds the normalised text, which compares as the documents do.

MariaDB's JSON is an alias: LONGTEXT with a CHECK (json_valid(c)) constraint, stored as
the text given (invalid text is error 4025, the constraint failing), logged as a
LONGTEXT (a BLOB, type 252).

Which one a CREATE TABLE makes is the flavor's (Flavor.json_column_is_text).
"""

from __future__ import annotations

import json
from decimal import Decimal

from .binlog.binary.json_binary import json_text
from .errors import ErrorCode, SqlError, not_supported, note

_INT64 = (-(2**63), 2**64 - 1)


class InvalidJson(ValueError):
    """Text that is not a JSON document, with the server's reason and position."""

    def __init__(self, reason: str, position: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.position = position


def parse_document(text: str) -> object:
    """The document `text` holds (a duplicate key's last value, as MySQL 8.0 keeps)."""
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        raise InvalidJson("The document is empty." if not text.strip() else "Invalid value.", error.pos) from None


def _no_constant(name: str) -> object:
    raise json.JSONDecodeError(f"{name} is not JSON", name, 0)


def is_valid(text: str) -> bool:
    try:
        parse_document(text)
    except InvalidJson:
        return False
    return True


def normalised_text(document: object) -> str:
    """A document as MySQL prints it; numbers MySQL would print otherwise are refused."""
    _check_numbers(document)
    return json_text(document)


def _check_numbers(value: object) -> None:
    if isinstance(value, dict):
        for item in value.values():
            _check_numbers(item)
    elif isinstance(value, list):
        for item in value:
            _check_numbers(item)
    elif isinstance(value, float) and ("e" in repr(value) or "inf" in repr(value) or "nan" in repr(value)):
        raise not_supported(f"a JSON number printed with an exponent ({value!r}): MySQL's double formatting")
    elif isinstance(value, int) and not isinstance(value, bool) and not _INT64[0] <= value <= _INT64[1]:
        raise not_supported(f"a JSON integer beyond 64 bits ({value}), which MySQL stores as a double")


def coerce_mysql_json(value: object, column: str) -> str:
    """The normalised text MySQL's JSON column stores for `value`; 3140 for invalid text
    and for a value that is not a string (a number must be CAST AS JSON)."""
    if isinstance(value, bytes):
        raise not_supported("a binary string stored in a JSON column (MySQL 3144)")
    if not isinstance(value, str):
        raise SqlError(ErrorCode.ER_INVALID_JSON_TEXT, "not a JSON text, may need CAST", 0, column)
    try:
        document = parse_document(value)
    except InvalidJson as error:
        raise SqlError(ErrorCode.ER_INVALID_JSON_TEXT, error.reason, error.position, column) from None
    return normalised_text(document)


def check_mariadb_json(text: str, column: str, table: str) -> None:
    """MariaDB's CHECK (json_valid(c)) of a JSON column: 4025 when the text is not JSON."""
    try:
        parse_document(text)
    except InvalidJson as invalid:
        error = SqlError(ErrorCode.ER_CONSTRAINT_FAILED, column, table)
        error.notes = (note(ErrorCode.ER_JSON_SYNTAX, 1, "json_valid", invalid.position + 1),)
        raise error from None


def document_of_text(text: str) -> object:
    """The document a stored JSON text holds, for the binary form the binlog carries."""
    return parse_document(text)


def text_of_document(document: object) -> str:
    """A decoded binary JSON value (a row event's) as the stored text."""
    if isinstance(document, Decimal):
        return str(document)
    return json_text(document)
