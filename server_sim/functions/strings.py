"""MySQL's string functions, each written once in Python (native.py runs it on either
evaluator): positions count characters, lengths and hashes count utf8mb4 bytes, and text
is matched under the connection collation (ASCII by its lower case; other text refused).
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from sqlglot import exp

from ..operands import Kind, Operand
from .library import Compiling, SqlFunction, Translating
from .byte_arguments import BYTES, charset_of
from .native import HUGE, INTEGER, TEXT, native, written_as_bytes
from .unmodelled import Unmodelled

_UNSIGNED = (1 << 64) - 1


def folded(text: str, function: str) -> str:
    """Text as the default collation matches it (case-insensitive): the lower case of ASCII."""
    if not text.isascii():
        raise Unmodelled(f"{function}() of non-ASCII text under the connection collation")
    return text.lower()


def substring(text: str, position: int, length: int | None = None) -> str:
    """SUBSTRING(s, pos[, len]): pos 1 is the first character, a negative pos counts from
    the end, pos 0 or past either end gives ''."""
    size = len(text)
    if position == 0 or position > size or -position > size:
        return ""
    start = position - 1 if position > 0 else size + position
    if length is None:
        return text[start:]
    return text[start : start + length] if length > 0 else ""


def substring_index(text: str, delimiter: str, count: int) -> str:
    """SUBSTRING_INDEX(s, delim, n): before the n-th delimiter (n > 0), after the n-th from
    the end (n < 0); the delimiter matches case-sensitively."""
    if not delimiter or count == 0:
        return ""
    parts = text.split(delimiter)
    return delimiter.join(parts[:count] if count > 0 else parts[count:])


def replace(text: str, old: str, new: str) -> str:
    """REPLACE(s, from, to): case-sensitive; an empty `from` replaces nothing."""
    return text.replace(old, new) if old else text


def locate(substr: str, text: str, position: int = 1) -> int:
    """LOCATE(substr, s[, pos]) / INSTR(s, substr) / POSITION(substr IN s): the 1-based
    position of the first match at or after pos, 0 for none."""
    if position < 1 or position > len(text) + 1:
        return 0
    return folded(text, "LOCATE").find(folded(substr, "LOCATE"), position - 1) + 1


def pad(text: str, length: int, filler: str, left: bool) -> str | None:
    """LPAD/RPAD: cut to `length`, or filled to it; NULL for a negative length or an empty filler."""
    if length < 0:
        return None
    if length <= len(text):
        return text[:length]
    if not filler:
        return None
    fill = (filler * ((length - len(text)) // len(filler) + 1))[: length - len(text)]
    return fill + text if left else text + fill


def insert(text: str, position: int, length: int, new: str) -> str:
    """INSERT(s, pos, len, new): len characters of s from pos replaced by new; s itself
    where pos is outside it; the rest of s from pos where len runs past its end."""
    if position < 1 or position > len(text):
        return text
    if length < 0 or length > len(text) - position + 1:
        length = len(text) - position + 1
    return text[: position - 1] + new + text[position - 1 + length :]


# SOUNDEX's codes of A to Z (sql/item_strfunc.cc); '0' is a letter skipped.
_SOUNDEX_CODES = "01230120022455012623010202"


def soundex(text: str) -> str:
    """SOUNDEX(s) as MySQL computes it: the first letter, then each letter's code unless it
    is skipped or repeats the last code kept (a skipped letter does not end a run), padded
    with 0 to four characters and never cut; '' without a letter. Non-ASCII text is
    refused (the server's letters there are its charset's)."""
    if not text.isascii():
        raise Unmodelled("SOUNDEX() of text that is not ASCII")
    letters = [char.upper() for char in text if char.isalpha()]
    if not letters:
        return ""
    out, last = [letters[0]], _SOUNDEX_CODES[ord(letters[0]) - ord("A")]
    for letter in letters[1:]:
        code = _SOUNDEX_CODES[ord(letter) - ord("A")]
        if code != "0" and code != last:
            out.append(code)
            last = code
    return "".join(out).ljust(4, "0")


def make_set(bits: str | None, *items: str | None) -> str | None:
    """MAKE_SET(bits, s1, s2, ...): the strings whose bit is set, comma-separated, NULLs
    left out (`bits` as its text, rounded as the server reads an integer)."""
    if bits is None:
        return None
    try:
        number = int(Decimal(bits).to_integral_value(ROUND_HALF_UP)) & ((1 << 64) - 1)
    except InvalidOperation:
        raise Unmodelled("MAKE_SET() of bits that are no number") from None
    return ",".join(item for index, item in enumerate(items) if item is not None and number >> index & 1)


def export_set(bits: int, on: str, off: str, separator: str = ",", count: int = 64) -> str:
    """EXPORT_SET(bits, on, off[, separator[, count]]): on or off for each of the lowest
    `count` bits (64 where it is out of 0..64), lowest first."""
    number = bits & ((1 << 64) - 1)
    count = count if 0 <= count <= 64 else 64
    return separator.join(on if number >> index & 1 else off for index in range(count))


def hex_text(data: bytes) -> str:
    return data.hex().upper()


def hex_number(number: int) -> str:
    """HEX(n): the digits of n as a 64-bit unsigned number: a negative n is its two's
    complement, a value beyond the range the nearest end of it."""
    clamped = min(max(number, -(1 << 63)), _UNSIGNED)
    return format(clamped & _UNSIGNED, "X")


def unhex(text: str) -> bytes | None:
    """UNHEX(s): the bytes a hex string stands for (an odd length has a leading 0); NULL for a non-hex digit."""
    try:
        return bytes.fromhex(("0" + text) if len(text) % 2 else text)
    except ValueError:
        return None


def sha2(data: bytes, bits: int) -> str | None:
    """SHA2(s, n): n of 224, 256 (or 0), 384, 512; NULL for any other."""
    algorithm = {0: "sha256", 224: "sha224", 256: "sha256", 384: "sha384", 512: "sha512"}.get(bits)
    return hashlib.new(algorithm, data).hexdigest() if algorithm else None


def ascii_code(data: bytes) -> int:
    return data[0] if data else 0


def ord_code(text: str) -> int:
    """ORD(s): the first character's utf8mb4 bytes as one big-endian number."""
    return int.from_bytes(text[0].encode(), "big") if text else 0


def field(needle: str | None, *haystack: str | None) -> int:
    """FIELD(s, s1, s2, ...): the 1-based index of the first equal one, 0 for none or a NULL s."""
    if needle is None:
        return 0
    key = folded(needle, "FIELD")
    for index, item in enumerate(haystack, start=1):
        if item is not None and folded(item, "FIELD") == key:
            return index
    return 0


def elt(index: str | None, *items: str | None) -> str | None:
    """ELT(n, s1, s2, ...): the n-th string (n rounded), NULL out of range."""
    if index is None:
        return None
    try:
        number = int(Decimal(index).to_integral_value(ROUND_HALF_UP))
    except InvalidOperation:
        raise Unmodelled("ELT() of a non-numeric index") from None
    return items[number - 1] if 1 <= number <= len(items) else None


def format_number(number: str, decimals: int) -> str:
    """FORMAT(x, d): rounded half up to d (0..30) decimals, with ',' between thousands."""
    try:
        value = Decimal(number)
    except InvalidOperation:
        raise Unmodelled("FORMAT() of a non-numeric value") from None
    places = min(max(decimals, 0), 30)
    rounded = value.quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP)
    return f"{rounded:,.{places}f}"


def strcmp(first: str, second: str) -> int:
    a, b = folded(first, "STRCMP"), folded(second, "STRCMP")
    return (a > b) - (a < b)


def _pick(*keys: str) -> Callable[[exp.Expression], list[exp.Expression]]:
    """A typed node's arguments in the function's order, from sqlglot's slots `keys`."""

    def arguments(node: exp.Expression) -> list[exp.Expression]:
        return [node.args[key] for key in keys if node.args.get(key) is not None]

    return arguments


_LENGTH = native("LENGTH", len, [BYTES], "BIGINT", aliases=("OCTET_LENGTH",))
_CHAR_LENGTH = native("CHAR_LENGTH", len, [TEXT], "BIGINT", aliases=("CHARACTER_LENGTH",))
_HEX_TEXT = native("HEX", hex_text, [BYTES], "VARCHAR", nodes=(exp.Hex,), arguments=_pick("this"))
_HEX_NUMBER = native("HEX_NUMBER", hex_number, ["HUGEINT"], "VARCHAR", exposed=False)
_LPAD = native("LPAD", lambda text, length, filler: pad(text, length, filler, True), [TEXT, INTEGER, TEXT], "VARCHAR")
_RPAD = native("RPAD", lambda text, length, filler: pad(text, length, filler, False), [TEXT, INTEGER, TEXT], "VARCHAR")
_NUMERIC_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "FLOAT", "DOUBLE")


def _one_of(node_type: type[exp.Expression], chosen: Callable[[exp.Expression], tuple[SqlFunction, list[exp.Expression]]]) -> SqlFunction:
    """The entry of a node sqlglot parses two functions into: `chosen` says which and its arguments."""

    def translate(node: exp.Expression, translation: Translating) -> exp.Expression:
        function, arguments = chosen(node)
        return function.duckdb(exp.Anonymous(this=function.names[0], expressions=arguments), translation)  # type: ignore[misc]

    def evaluate(node: exp.Expression, compiler: Compiling) -> Operand:
        function, arguments = chosen(node)
        return function.python(exp.Anonymous(this=function.names[0], expressions=arguments), compiler)  # type: ignore[misc]

    return SqlFunction(nodes=(node_type,), duckdb=translate, python=evaluate)


def _length_entry() -> SqlFunction:
    """sqlglot parses LENGTH and CHAR_LENGTH into one node, LENGTH's marked binary."""
    return _one_of(exp.Length, lambda node: (_LENGTH if node.args.get("binary") else _CHAR_LENGTH, [node.this]))


def _pad_entry() -> SqlFunction:
    """LPAD and RPAD: one node, LPAD's marked is_left."""
    return _one_of(exp.Pad, lambda node: (_LPAD if node.args.get("is_left") else _RPAD, [node.this, node.expression, node.args.get("fill_pattern")]))


def _hex_entry() -> SqlFunction:
    """HEX(x): a number's digits, a string's bytes; DuckDB tells which by the value's type."""

    def translate(node: exp.Expression, translation: Translating) -> exp.Expression:
        argument = node.this
        if isinstance(argument, exp.Literal):
            chosen = _HEX_TEXT if argument.is_string else _HEX_NUMBER
            return chosen.duckdb(exp.Anonymous(this="HEX", expressions=[argument]), translation)  # type: ignore[misc]
        text = _HEX_TEXT.duckdb(exp.Anonymous(this="HEX", expressions=[argument]), translation)  # type: ignore[misc]
        if written_as_bytes(argument):
            return text
        number = _HEX_NUMBER.duckdb(exp.Anonymous(this="HEX", expressions=[exp.TryCast(this=argument.copy(), to=exp.DataType.build("HUGEINT"))]), translation)  # type: ignore[misc]
        types = exp.Tuple(expressions=[exp.Literal.string(name) for name in _NUMERIC_TYPES])
        test = exp.In(this=exp.Anonymous(this="typeof", expressions=[translation.rewrite(argument)]), expressions=types.expressions)
        return exp.Case(ifs=[exp.If(this=test, true=number)], default=text)

    def evaluate(node: exp.Expression, compiler: Compiling) -> Operand:
        chosen = _HEX_TEXT if compiler.operand(node.this).kind is Kind.TEXT else _HEX_NUMBER
        return chosen.python(exp.Anonymous(this="HEX", expressions=[node.this]), compiler)  # type: ignore[misc]

    return SqlFunction(names=("HEX",), nodes=(exp.Hex,), duckdb=translate, python=evaluate)


_ASCII = native("ASCII", ascii_code, [BYTES], "BIGINT", nodes=(exp.Ascii,), arguments=_pick("this"))
_ORD = native("ORD", ord_code, [TEXT], "BIGINT")


def _ord_entry() -> SqlFunction:
    """ORD(s): the first character's bytes as one number: in a single-byte character set
    (latin1, ascii, a binary string) its first byte, as ASCII(s) gives; in utf8mb4 the
    character's UTF-8 bytes."""

    def translate(node: exp.Expression, translation: Translating) -> exp.Expression:
        arguments = list(node.expressions)
        charset = charset_of(arguments[0], translation) if len(arguments) == 1 else "utf8mb4"
        chosen = _ORD if charset in ("utf8mb4", "utf8mb3") else _ASCII
        return chosen.duckdb(exp.Anonymous(this="ORD", expressions=arguments), translation)  # type: ignore[misc]

    return SqlFunction(names=("ORD",), duckdb=translate, python=_ASCII.python)  # the fast path reads ASCII alone


_HEX = _hex_entry()


def _lower_hex(node: exp.Expression, translation: Translating) -> exp.Expression:
    """LOWER(HEX(x)), which sqlglot parses into one node."""
    return exp.Lower(this=_HEX.duckdb(exp.Hex(this=node.this), translation))  # type: ignore[misc]


STRINGS: tuple[SqlFunction, ...] = (
    _length_entry(),
    SqlFunction(nodes=(exp.LowerHex,), duckdb=_lower_hex),
    _LENGTH,
    _CHAR_LENGTH,
    _HEX,
    native("SUBSTRING", substring, [TEXT, INTEGER, INTEGER], "VARCHAR", nodes=(exp.Substring,), arguments=_pick("this", "start", "length"), optional=1, aliases=("SUBSTR", "MID")),
    native("INSERT", insert, [TEXT, INTEGER, INTEGER, TEXT], "VARCHAR", nodes=(exp.Stuff,), arguments=_pick("this", "start", "length", "expression")),
    native("SOUNDEX", soundex, [TEXT], "VARCHAR", nodes=(exp.Soundex,), arguments=_pick("this")),
    native("MAKE_SET", make_set, [TEXT, TEXT], "VARCHAR", variadic=True, null_in_null_out=False),
    native("EXPORT_SET", export_set, [HUGE, TEXT, TEXT, TEXT, INTEGER], "VARCHAR", optional=2),
    native("SUBSTRING_INDEX", substring_index, [TEXT, TEXT, INTEGER], "VARCHAR", nodes=(exp.SubstringIndex,), arguments=_pick("this", "delimiter", "count")),
    native("REPLACE", replace, [TEXT, TEXT, TEXT], "VARCHAR", nodes=(exp.Replace,), arguments=_pick("this", "expression", "replacement")),
    native("LOCATE", locate, [TEXT, TEXT, INTEGER], "BIGINT", nodes=(exp.StrPosition,), arguments=_pick("substr", "this", "position"), optional=1, folds_case=True),
    _LPAD,
    _RPAD,
    _pad_entry(),
    native("UNHEX", unhex, [TEXT], "BLOB", nodes=(exp.Unhex,), arguments=_pick("this")),
    native("MD5", lambda data: hashlib.md5(data).hexdigest(), [BYTES], "VARCHAR", nodes=(exp.MD5,), arguments=_pick("this")),
    native("SHA1", lambda data: hashlib.sha1(data).hexdigest(), [BYTES], "VARCHAR", nodes=(exp.SHA,), arguments=_pick("this"), aliases=("SHA",)),
    native("SHA2", sha2, [BYTES, INTEGER], "VARCHAR", nodes=(exp.SHA2,), arguments=_pick("this", "length")),
    native("CRC32", zlib.crc32, [BYTES], "UBIGINT"),
    _ASCII,
    _ord_entry(),
    native("FIELD", field, [TEXT, TEXT], "BIGINT", variadic=True, null_in_null_out=False, folds_case=True),
    native("ELT", elt, [TEXT, TEXT], "VARCHAR", nodes=(exp.Elt,), arguments=lambda node: [node.this, *node.expressions], variadic=True, null_in_null_out=False),
    native("FORMAT", format_number, [TEXT, INTEGER], "VARCHAR", nodes=(exp.NumberToStr,), arguments=_pick("this", "format")),
    native("SPACE", lambda count: " " * max(count, 0), [INTEGER], "VARCHAR", nodes=(exp.Space,), arguments=_pick("this")),
    native("STRCMP", strcmp, [TEXT, TEXT], "BIGINT", folds_case=True),
)
