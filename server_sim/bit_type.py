"""BIT(n): the value of a bit column, checked as Field_bit::store does.

A BIT(n) value is an unsigned number of n bits (1 <= n <= 64). The row holds it as
(n + 7) / 8 bytes, big-endian (what the binlog carries); the catalog and DuckDB hold the
number (UBIGINT), so comparisons and `c + 0` are numeric, as in the server. A client reads
the column as those bytes (`client_bytes`).

What may be stored: an integer (a negative one is its 64-bit two's complement, as
Field_bit::store(longlong) writes it), a string or a hexadecimal / bit-value literal as
its bytes (leading zero bytes do not count). More bits than the column has is 1406 in
strict mode; non-strict mode (all bits set with a warning) is refused with the rest of
non-strict sql_mode (server_sim/sysvars.py).
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

from .errors import ErrorCode, SqlError

MAX_BITS = 64


class BinaryLiteral(bytes):
    """A hexadecimal (`0x41`, `X'41'`) or bit-value (`b'0101'`) literal: a binary string
    that a numeric column reads as the number its bytes spell (Item_hex_string)."""

    @classmethod
    def from_hex(cls, digits: str) -> BinaryLiteral:
        return cls(bytes.fromhex(digits if len(digits) % 2 == 0 else "0" + digits))

    @classmethod
    def from_bits(cls, digits: str) -> BinaryLiteral:
        if not digits:
            return cls(b"")
        return cls(int(digits, 2).to_bytes((len(digits) + 7) // 8, "big"))

    @property
    def number(self) -> int:
        return int.from_bytes(self, "big")


def bit_bytes(value: object) -> bytes:
    """The bytes Field_bit::store is given for a value."""
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, (float, Decimal)):
        value = int(Decimal(repr(value) if isinstance(value, float) else value).to_integral_value(rounding=ROUND_HALF_EVEN))
    if isinstance(value, int):
        return (value & (2**MAX_BITS - 1)).to_bytes(8, "big")
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"a BIT value of {type(value).__name__}")


def coerce_bit(value: object, bits: int, column: str, row: int) -> int:
    """The number a BIT(bits) column stores for `value`; 1406 when it has more bits."""
    number = int.from_bytes(bit_bytes(value), "big")
    if number >> bits:
        raise SqlError(ErrorCode.ER_DATA_TOO_LONG, column, row)
    return number


def byte_length(bits: int) -> int:
    return (bits + 7) // 8


def client_bytes(value: int, bits: int) -> bytes:
    """The column's value as a client reads it: its bytes, big-endian."""
    return int(value).to_bytes(byte_length(bits), "big")


def bit_literal_text(value: int, bits: int) -> str:
    """The value as mariadb-binlog -v prints a BIT column: b'0101' with every bit of the column."""
    return "b'" + format(int(value), f"0{bits}b") + "'"
