"""MySQL 8.0's UUID functions: UUID_TO_BIN(text[, swap]) gives the 16 bytes a UUID's text
stands for, BIN_TO_UUID(bytes[, swap]) the text of 16 bytes, IS_UUID(text) whether text is
one (sql/item_strfunc.cc, libbinlogevents/src/uuid.cpp). Applications keep UUID keys in
BINARY(16) columns with them; `swap` moves the time-high group first (an index-friendly
order for version 1 UUIDs). MariaDB 10.11 has none of them: a call is 1305 there.
"""

from __future__ import annotations

import re

from sqlglot import exp

from ..errors import ErrorCode, SqlError
from .library import SqlFunction, Translating, refuse_if_missing
from .native import INTEGER, TEXT, Native, NATIVES, binary_string, call_in_duckdb, function_name, native
from .unmodelled import Unmodelled

# The three spellings Uuid::parse reads: 32 hex digits, the 8-4-4-4-12 groups, and those in braces.
_UUID = re.compile(r"[0-9a-fA-F]{32}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
NAMES = ("UUID_TO_BIN", "BIN_TO_UUID", "IS_UUID")


def _parsed(text: str) -> bytes | None:
    """The 16 bytes a UUID's text stands for; None when it is none of the three spellings."""
    if len(text) == 38 and text[0] == "{" and text[-1] == "}":
        text = text[1:-1]
        if len(text) != 36:
            return None
    if len(text) not in (32, 36) or not _UUID.fullmatch(text):
        return None
    return bytes.fromhex(text.replace("-", ""))


def is_uuid(text: str) -> int:
    return int(_parsed(text) is not None)


def _printable(value: bytes) -> str:
    """A binary value as the server's error names it (ErrConvString): ASCII as itself, the other bytes as \\xHH."""
    return "".join(chr(byte) if 0x20 <= byte < 0x7F else f"\\x{byte:02X}" for byte in value)


def uuid_to_bin(text: str, swap: int = 0) -> bytes:
    """UUID_TO_BIN: the bytes, with `swap` the time-high group (bytes 6-7) and time-mid
    (4-5) moved before time-low (0-3); text that is no UUID is error 1411."""
    value = _parsed(text)
    if value is None:
        raise SqlError(ErrorCode.ER_WRONG_VALUE_FOR_TYPE, "string", text[:128], "uuid_to_bin")
    return value[6:8] + value[4:6] + value[0:4] + value[8:] if swap else value


def bin_to_uuid(value: bytes, swap: int = 0) -> str:
    """BIN_TO_UUID: the 8-4-4-4-12 text, lower-case, of exactly 16 bytes (`swap` undoes
    UUID_TO_BIN's); any other length is error 1411 naming the bytes."""
    if len(value) != 16:
        raise SqlError(ErrorCode.ER_WRONG_VALUE_FOR_TYPE, "string", _printable(value)[:128], "bin_to_uuid")
    if swap:
        value = value[4:8] + value[2:4] + value[0:2] + value[8:]
    digits = value.hex()
    return "-".join((digits[0:8], digits[8:12], digits[12:16], digits[16:20], digits[20:32]))


def _text_to_uuid(text: str, swap: int = 0) -> str:
    """BIN_TO_UUID of text: its bytes, which are its characters where it is ASCII."""
    if not text.isascii():
        raise Unmodelled("BIN_TO_UUID() of text with non-ASCII characters")
    return bin_to_uuid(text.encode(), swap)


_UUID_TO_BIN = native("UUID_TO_BIN", uuid_to_bin, [TEXT, INTEGER], "BLOB", optional=1)
_IS_UUID = native("IS_UUID", is_uuid, [TEXT], "BIGINT")
_OF_TEXT = native("BIN_TO_UUID_OF_TEXT", _text_to_uuid, [TEXT, INTEGER], "VARCHAR", optional=1, exposed=False)
_OF_BYTES = {count: Native(f"rpl_fn_bin_to_uuid_{count}", bin_to_uuid, ("BLOB", INTEGER)[:count], "VARCHAR") for count in (1, 2)}
NATIVES.update({form.name: form for form in _OF_BYTES.values()})


def _is_bytes(value: exp.Expression, translation: Translating) -> bool:
    """Whether an argument is a binary string as written: a binary column, a hexadecimal
    literal, a function giving bytes, a CAST AS BINARY."""
    if isinstance(value, exp.HexString):
        return True
    return binary_string(value, translation) or isinstance(value, exp.Anonymous) and function_name(value) == "UUID_TO_BIN"


def _bin_to_uuid(node: exp.Expression, translation: Translating) -> exp.Expression:
    """BIN_TO_UUID: the bytes of a binary argument, the characters of a text one (a text
    argument that is bytes after all is refused by the text parameter's test)."""
    refuse_if_missing("BIN_TO_UUID", node, translation)
    arguments = list(node.expressions)
    if len(arguments) not in (1, 2):
        raise SqlError(ErrorCode.ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT, "BIN_TO_UUID")
    value = arguments[0]
    if not _is_bytes(value, translation):
        return _OF_TEXT.duckdb(node, translation)  # type: ignore[misc]
    if isinstance(value, exp.HexString):
        arguments[0] = exp.Unhex(this=exp.Literal.string(str(value.this)))
    return call_in_duckdb(_OF_BYTES[len(arguments)], arguments, translation)


def _checked(function: SqlFunction) -> SqlFunction:
    """An entry that first asks whether the flavor has the function."""
    translate, name = function.duckdb, function.names[0]
    assert translate is not None

    def checked(node: exp.Expression, translation: Translating) -> exp.Expression:
        refuse_if_missing(name, node, translation)
        return translate(node, translation)

    return SqlFunction(names=function.names, duckdb=checked)


UUIDS: tuple[SqlFunction, ...] = (
    _checked(_UUID_TO_BIN),
    _checked(_IS_UUID),
    SqlFunction(names=("BIN_TO_UUID",), duckdb=_bin_to_uuid),
)
