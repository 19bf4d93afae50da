"""The IPv6 address functions (sql/item_inetfunc.cc): INET6_ATON gives an address's 4 or
16 bytes, INET6_NTOA their text as the server writes it (the first longest run of zero
groups, even a single one, as `::`; an IPv4-compatible or IPv4-mapped address with its
dotted tail), IS_IPV4 and IS_IPV6 test text, IS_IPV4_COMPAT and IS_IPV4_MAPPED bytes. The
server's NULL with Warning 1411 for text that is no address, and for INET6_NTOA of
anything but 4 or 16 bytes, is refused (1235), and so is IS_IPV4_COMPAT / IS_IPV4_MAPPED
of anything but 16 bytes (MySQL's 0, MariaDB's warning 1292) and a text argument where the
functions expect bytes (the server tests the argument's character set).
"""

from __future__ import annotations

from sqlglot import exp

from ..errors import not_supported
from .byte_arguments import BYTES
from .library import SqlFunction, Translating
from .native import TEXT, binary_string, native
from .unmodelled import Unmodelled

_HEX_DIGITS = "0123456789abcdef"


def ipv4_bytes(text: str) -> bytes | None:
    """str_to_ipv4: four groups of one to three digits, each at most 255; None otherwise."""
    if not 7 <= len(text) <= 15:
        return None
    groups = text.split(".")
    if len(groups) != 4 or any(not (1 <= len(group) <= 3 and group.isascii() and group.isdigit()) for group in groups):
        return None
    values = [int(group) for group in groups]
    return bytes(values) if all(value <= 255 for value in values) else None


def ipv6_bytes(text: str) -> bytes | None:
    """str_to_ipv6: hexadecimal groups of up to four digits, one `::` gap, an IPv4 tail."""
    if not 2 <= len(text) <= 39:
        return None
    position = 0
    if text[0] == ":":
        if text[1] != ":":
            return None
        position = 1
    out = bytearray()
    gap: int | None = None
    group_start = position
    digits = value = 0
    while position < len(text):
        char = text[position]
        position += 1
        if char == ":":
            group_start = position
            if not digits:
                if gap is not None:
                    return None
                gap = len(out)
                continue
            if position >= len(text) or len(out) + 2 > 16:
                return None
            out += value.to_bytes(2, "big")
            digits = value = 0
        elif char == ".":
            tail = ipv4_bytes(text[group_start:])
            if len(out) + 4 > 16 or tail is None:
                return None
            out += tail
            digits = 0
            break
        else:
            digit = _HEX_DIGITS.find(char.lower()) if char.isascii() else -1
            if digit < 0 or digits >= 4:
                return None
            value, digits = (value << 4) | digit, digits + 1
    if digits:
        if len(out) + 2 > 16:
            return None
        out += value.to_bytes(2, "big")
    if gap is not None:
        if len(out) == 16:
            return None
        out = out[:gap] + bytes(16 - len(out)) + out[gap:]
    return bytes(out) if len(out) == 16 else None


def inet6_aton(text: str) -> bytes:
    found = ipv4_bytes(text) or ipv6_bytes(text)
    if found is None:
        raise Unmodelled("INET6_ATON() of text that is no IP address (the server warns 1411)")
    return found


def inet6_ntoa(data: bytes) -> str:
    if len(data) == 4:
        return ".".join(str(byte) for byte in data)
    if len(data) != 16:
        raise Unmodelled("INET6_NTOA() of bytes that are no IP address (the server warns 1411)")
    words = [int.from_bytes(data[index : index + 2], "big") for index in range(0, 16, 2)]
    gap_start, gap_length, start, length = -1, -1, -1, -1
    for index, word in enumerate(words):
        if word:
            if start >= 0 and length > gap_length:
                gap_start, gap_length = start, length
            start = length = -1
        elif start >= 0:
            length += 1
        else:
            start, length = index, 1
    if start >= 0 and length > gap_length:
        gap_start, gap_length = start, length
    out: list[str] = []
    index = 0
    while index < 8:
        if index == gap_start:
            out.append("::" if index == 0 else ":")
            index += gap_length
            continue
        if index == 6 and gap_start == 0 and (gap_length == 6 or (gap_length == 5 and words[5] == 0xFFFF)):
            out.append(".".join(str(byte) for byte in data[12:]))  # IPv4-compatible or -mapped
            break
        out.append(f"{words[index]:x}" + (":" if index != 7 else ""))
        index += 1
    return "".join(out)


def _sixteen(data: bytes, name: str) -> bytes:
    if len(data) != 16:
        raise Unmodelled(f"{name}() of bytes that are no IPv6 address (MySQL's 0, MariaDB's warning 1292)")
    return data


def is_ipv4_compat(data: bytes) -> int:
    """IN6_IS_ADDR_V4COMPAT: 12 zero bytes, then neither 0.0.0.0 nor 0.0.0.1."""
    data = _sixteen(data, "IS_IPV4_COMPAT")
    return int(not any(data[:12]) and int.from_bytes(data[12:], "big") > 1)


def is_ipv4_mapped(data: bytes) -> int:
    data = _sixteen(data, "IS_IPV4_MAPPED")
    return int(not any(data[:10]) and data[10:12] == b"\xff\xff")


def _of_bytes(name: str, entry: SqlFunction) -> SqlFunction:
    """An entry whose argument must be a binary string as written (a binary column or a
    function giving bytes): the server answers text by its character set, not its bytes."""
    translate = entry.duckdb
    assert translate is not None

    def checked(node: exp.Expression, translation: Translating) -> exp.Expression:
        for argument in node.expressions:
            if not binary_string(argument, translation) and not isinstance(argument, exp.Null):
                raise not_supported(f"{name}() of {argument.sql(dialect='mysql')}, which may be text (the server reads only a binary string)")
        return translate(node, translation)

    return SqlFunction(names=entry.names, duckdb=checked)


INET6: tuple[SqlFunction, ...] = (
    native("INET6_ATON", inet6_aton, [TEXT], "BLOB"),
    _of_bytes("INET6_NTOA", native("INET6_NTOA", inet6_ntoa, [BYTES], "VARCHAR")),
    native("IS_IPV4", lambda text: int(ipv4_bytes(text) is not None), [TEXT], "BIGINT"),
    native("IS_IPV6", lambda text: int(ipv6_bytes(text) is not None), [TEXT], "BIGINT"),
    _of_bytes("IS_IPV4_COMPAT", native("IS_IPV4_COMPAT", is_ipv4_compat, [BYTES], "BIGINT")),
    _of_bytes("IS_IPV4_MAPPED", native("IS_IPV4_MAPPED", is_ipv4_mapped, [BYTES], "BIGINT")),
)
