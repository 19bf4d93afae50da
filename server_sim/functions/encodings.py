"""Functions that encode a string's bytes or build one from numbers: TO_BASE64 and
FROM_BASE64 (MySQL's base-64, a newline after every 76 characters), QUOTE (a string as an
SQL literal), CHAR(n, ...) (each number's bytes), and the IPv4 address functions
INET_ATON and INET_NTOA (sql/item_inetfunc.cc). Where the server answers NULL with a
warning (an address that is no address), the simulator refuses (1235).
"""

from __future__ import annotations

import base64
import binascii

from sqlglot import exp

from ..errors import not_supported
from .byte_arguments import BYTES
from .library import SqlFunction, Translating
from .native import HUGE, INTEGER, TEXT, native
from .unmodelled import Unmodelled

_LINE = 76  # base64_encode's line length
_QUOTED = {"\\": "\\\\", "'": "\\'", "\0": "\\0", "\x1a": "\\Z"}


def to_base64(data: bytes) -> str:
    encoded = base64.b64encode(data).decode("ascii")
    return "\n".join(encoded[start : start + _LINE] for start in range(0, len(encoded), _LINE))


def from_base64(text: str) -> bytes:
    """The bytes, spaces and line breaks skipped; text that is no base-64 is MySQL's NULL
    and MariaDB's warning 1958 (an error in a strict INSERT): refused."""
    try:
        return base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError):
        raise Unmodelled("FROM_BASE64() of text that is no base-64 (MySQL's NULL, MariaDB's warning 1958)") from None


def quote(text: str | None) -> str:
    """QUOTE(s): s as a string literal, backslash, quote, NUL and Ctrl-Z escaped; NULL is
    the word NULL."""
    if text is None:
        return "NULL"
    return "'" + "".join(_QUOTED.get(char, char) for char in text) + "'"


def char_bytes(*numbers: int | None) -> bytes:
    """CHAR(n, ...): each number's bytes, most significant first without leading zero
    bytes (a 32-bit value: larger numbers wrap), NULLs skipped."""
    out = bytearray()
    for number in numbers:
        if number is None:
            continue
        value = number & 0xFFFFFFFF
        out += value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")
    return bytes(out)


def inet_aton(text: str) -> int:
    """INET_ATON: a dotted IPv4 address's number, short forms included ('127.1' is
    127.0.0.1); the server's NULL with Warning 1411 for anything else is refused."""
    result = byte = dots = 0
    last = "."
    for char in text:
        last = char
        if char.isascii() and char.isdigit():
            byte = byte * 10 + int(char)
            if byte > 255:
                raise Unmodelled("INET_ATON() of text that is no IPv4 address (the server warns 1411)")
        elif char == ".":
            dots += 1
            result, byte = (result << 8) + byte, 0
        else:
            raise Unmodelled("INET_ATON() of text that is no IPv4 address (the server warns 1411)")
    if last == "." or dots > 3:
        raise Unmodelled("INET_ATON() of text that is no IPv4 address (the server warns 1411)")
    if dots == 1:
        result <<= 16
    elif dots == 2:
        result <<= 8
    return (result << 8) + byte


def inet_ntoa(number: int) -> str:
    """INET_NTOA: the dotted form of a number up to 255.255.255.255; beyond it the server's
    NULL with Warning 1411 is refused."""
    if not 0 <= number <= 0xFFFFFFFF:
        raise Unmodelled("INET_NTOA() of a number that is no IPv4 address (the server warns 1411)")
    return ".".join(str(part) for part in number.to_bytes(4, "big"))


_CHAR = native("CHAR", char_bytes, [INTEGER], "BLOB", variadic=True, null_in_null_out=False, exposed=False)


def _char(node: exp.Expression, translation: Translating) -> exp.Expression:
    """CHAR(n, ... [USING charset]): bytes; a character set's text is refused."""
    if node.args.get("charset"):
        raise not_supported(f"CHAR() USING a character set ({node.sql(dialect='mysql')})")
    return _CHAR.duckdb(exp.Anonymous(this="CHAR", expressions=list(node.expressions)), translation)  # type: ignore[misc]


ENCODINGS: tuple[SqlFunction, ...] = (
    native("TO_BASE64", to_base64, [BYTES], "VARCHAR", nodes=(exp.ToBase64,), arguments=lambda node: [node.this]),
    native("FROM_BASE64", from_base64, [TEXT], "BLOB", nodes=(exp.FromBase64,), arguments=lambda node: [node.this]),
    native("QUOTE", quote, [TEXT], "VARCHAR", null_in_null_out=False),
    native("INET_ATON", inet_aton, [TEXT], "UBIGINT"),
    native("INET_NTOA", inet_ntoa, [HUGE], "VARCHAR"),
    SqlFunction(names=("CHAR",), nodes=(exp.Chr,), duckdb=_char),
)
