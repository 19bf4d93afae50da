"""The bytes a function reads of its argument: LENGTH, HEX, MD5, SHA1, SHA2, CRC32, ASCII,
AES_ENCRYPT and their kin work on a string's bytes, not its characters.

A binary string's bytes are its own. A text's are those of its character set: 'é' in a
latin1 column (MariaDB's default character set) is the one byte E9, in a utf8mb4 column
the two bytes C3 A9, so LENGTH, HEX and MD5 of the same text differ by column. The
simulator keeps text as Unicode, so it encodes the text in the character set the server
reads it in: the one of the columns the argument is made of (a literal beside a column
takes the column's, as the server's coercibility rules convert it), or
character_set_connection where it reads no column. Where that cannot be told (columns of
two character sets, a conversion, a column of a derived table), text that is not ASCII,
whose bytes are the same in every character set modelled, is refused (1235).
"""

from __future__ import annotations

from sqlglot import exp

from ..charsets import encode_text
from ..types import TypeFamily
from .library import Translating
from .unmodelled import Unmodelled

# The parameter type of an argument read as bytes: DuckDB's BLOB, bytes in Python.
BYTES = "BLOB"

_TEXT_FAMILIES = (TypeFamily.STRING, TypeFamily.ENUM, TypeFamily.SET)
# Character sets whose text DuckDB's encode() gives the bytes of (UTF-8; ASCII is the same).
_UTF8 = ("utf8mb4", "utf8mb3", "ascii")


def charset_of(argument: exp.Expression, translation: Translating) -> str | None:
    """The character set the server reads a string argument's bytes in: "binary" where a
    binary column takes part, its text columns' one character set, character_set_connection
    where it reads no column; None where the simulator cannot tell."""
    found: set[str] = set()
    for column in argument.find_all(exp.Column):
        declared = translation.column_type(column)
        if declared is None:
            return None
        if declared.family is TypeFamily.BINARY:
            return "binary"
        if declared.family in _TEXT_FAMILIES:
            found.add(declared.charset)
    if found and any(isinstance(node, (exp.Cast, exp.TryCast, exp.Convert)) for node in argument.walk()):
        return None  # CAST(c AS CHAR) is in character_set_connection, not in c's
    if not found:
        return str(translation.context.system_variable("character_set_connection", None) or "utf8mb4")
    return found.pop() if len(found) == 1 else None


def bytes_argument(argument: exp.Expression, translated: exp.Expression, translation: Translating) -> exp.Expression:
    """The DuckDB BLOB of a translated argument: a BLOB as it is, any other value's text
    encoded in the character set `argument` is read in. DuckDB settles which branch when it
    binds the query."""
    charset = charset_of(argument, translation)
    text = exp.cast(translated.copy(), exp.DataType.build("VARCHAR"))
    if charset in _UTF8:
        encoded = exp.Anonymous(this="encode", expressions=[text])
    elif charset == "latin1":
        encoded = exp.Anonymous(this=LATIN1_BYTES, expressions=[text])
    else:
        encoded = exp.Anonymous(this=ASCII_BYTES, expressions=[text])
    as_bytes = exp.cast(translated.copy(), exp.DataType.build(BYTES, dialect="duckdb"))
    return exp.Case(ifs=[exp.If(this=is_binary(translated.copy()), true=as_bytes)], default=encoded)


def is_binary(translated: exp.Expression) -> exp.Expression:
    """The DuckDB test that a translated value is bytes (a binary column's BLOB), which
    DuckDB settles when it binds the query."""
    return exp.EQ(this=exp.Anonymous(this="typeof", expressions=[translated]), expression=exp.Literal.string("BLOB"))


def latin1_bytes(text: str) -> bytes:
    """Text's bytes in MySQL's latin1 (Windows-1252 with its five gaps filled)."""
    return encode_text(text, "latin1")


def ascii_bytes(text: str) -> bytes:
    """Text's bytes where its character set is unknown: ASCII's are every set's."""
    if not text.isascii():
        raise Unmodelled("the bytes of text that is not ASCII, whose character set the simulator cannot tell here")
    return text.encode()


# The DuckDB functions (registered with the natives) that give text's bytes.
LATIN1_BYTES = "rpl_latin1_bytes"
ASCII_BYTES = "rpl_ascii_bytes"
