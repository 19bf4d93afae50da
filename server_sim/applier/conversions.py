"""slave_type_conversions: when a master column may be applied to a slave column of another type.

Each master/slave column pair is classified as the servers do (table_def::compatible_with):
the same type is always applied; a wider slave type needs ALL_NON_LOSSY, a narrower one
ALL_LOSSY; types of different kinds cannot be converted. A pair that is not allowed stops
the applier with 1677 before any row of the event is applied.
"""

from __future__ import annotations

from decimal import Decimal
from enum import Enum

from server_sim.enum_set import pack_length, text_of
from server_sim.errors import ErrorCode, SqlError
from server_sim.temporal_types import TemporalRules
from server_sim.types import ColumnType, TypeFamily

# Families whose members convert into each other; the other families only into themselves.
_NUMERIC_APPROXIMATE = frozenset({TypeFamily.DECIMAL, TypeFamily.FLOAT})


class Conversion(Enum):
    PRECISE = "precise"
    NON_LOSSY = "non-lossy"  # subset to superset
    LOSSY = "lossy"  # superset to subset
    IMPOSSIBLE = "impossible"

    def allowed(self, modes: frozenset[str]) -> bool:
        if self is Conversion.PRECISE:
            return True
        if self is Conversion.NON_LOSSY:
            return "ALL_NON_LOSSY" in modes
        if self is Conversion.LOSSY:
            return "ALL_LOSSY" in modes
        return False


def conversion_modes(setting: str) -> frozenset[str]:
    return frozenset(member for member in setting.split(",") if member)


def classify(master: ColumnType, slave: ColumnType) -> Conversion:
    """What applying a `master` value to a `slave` column means."""
    if master == slave:
        return Conversion.PRECISE
    if master.family is TypeFamily.INTEGER and slave.family is TypeFamily.INTEGER:
        if master.unsigned != slave.unsigned:
            return Conversion.LOSSY
        return _by_size(master.base.bits, slave.base.bits)
    if master.family is TypeFamily.DECIMAL and slave.family is TypeFamily.DECIMAL:
        master_integer_digits = (master.length or 10) - (master.scale or 0)
        slave_integer_digits = (slave.length or 10) - (slave.scale or 0)
        wider = slave_integer_digits >= master_integer_digits and (slave.scale or 0) >= (master.scale or 0)
        return Conversion.NON_LOSSY if wider and master.unsigned == slave.unsigned else Conversion.LOSSY
    if master.family is TypeFamily.FLOAT and slave.family is TypeFamily.FLOAT:
        return Conversion.NON_LOSSY if slave.name == "DOUBLE" else Conversion.LOSSY
    if master.family in _NUMERIC_APPROXIMATE and slave.family in _NUMERIC_APPROXIMATE:
        return Conversion.LOSSY
    if master.family is slave.family and master.family in (TypeFamily.STRING, TypeFamily.BINARY):
        return _by_size(_max_length(master), _max_length(slave))
    if master.name == slave.name and master.family in (TypeFamily.DATETIME, TypeFamily.TIME):
        # The same type with other fractional digits; a master column without any (its
        # metadata 0) counts as the same type (rpl_conv_type_from_same_data_type).
        return Conversion.PRECISE if not master.scale else _by_size(master.scale, slave.scale or 0)
    if master.family is slave.family and master.is_enum_or_set:
        # Field::compatible_field_size: the pack lengths, not the members, are compared.
        return _by_size(enum_set_pack_length(master), enum_set_pack_length(slave))
    return Conversion.IMPOSSIBLE


def enum_set_pack_length(column_type: ColumnType) -> int:
    """An ENUM/SET's bytes: a type read from a table map carries them as its length."""
    return column_type.length if column_type.length is not None else pack_length(column_type.name, column_type.members)


def _by_size(master: int, slave: int) -> Conversion:
    if slave == master:
        return Conversion.PRECISE
    return Conversion.NON_LOSSY if slave > master else Conversion.LOSSY


def _max_length(column_type: ColumnType) -> int:
    """The column's size as the replica compares it: bytes (characters times the
    charset's bytes per character), as Field::compatible_field_size does."""
    return column_type.byte_length if column_type.length is not None else column_type.base.max_length


def check_columns(master_types: list[ColumnType], slave_types: list[ColumnType], modes: frozenset[str], database: str, table: str) -> None:
    """Raise 1677 for the first of the shared leading columns that may not be converted."""
    for index, (master, slave) in enumerate(zip(master_types, slave_types)):
        if not classify(master, slave).allowed(modes):
            raise SqlError(
                ErrorCode.ER_SLAVE_CONVERSION_FAILED,
                index,
                database,
                table,
                master.sql.lower(),
                slave.sql.lower(),
            )


def convert(value: object, master: ColumnType, slave: ColumnType, column: str, temporal_rules: TemporalRules | None = None) -> object:
    """A master value as the slave column stores it; a lossy conversion truncates to fit.
    An ENUM/SET's number is the slave's member at that number, whatever the master's text
    was: the replica copies the index (or bitmask), as a real one does."""
    if slave.is_enum_or_set and master.is_enum_or_set and isinstance(value, int):
        return text_of(slave.name, slave.members, value & ((1 << 8 * enum_set_pack_length(slave)) - 1))
    try:
        return slave.coerce(value, column, 1, temporal_rules)
    except SqlError:
        if classify(master, slave) is not Conversion.LOSSY:
            raise
        return _truncated(value, slave, column)


def _truncated(value: object, slave: ColumnType, column: str) -> object:
    """What a narrower column keeps of a value: clipped to its range, cut to its length."""
    if slave.family is TypeFamily.INTEGER:
        low, high = slave.integer_range()
        return min(max(int(value), low), high)
    if slave.family in (TypeFamily.STRING, TypeFamily.BINARY):
        return slave.coerce(value[: slave.length if slave.length is not None else slave.base.max_length], column)
    if slave.family is TypeFamily.DECIMAL:
        scale = slave.scale or 0
        limit = Decimal(10) ** ((slave.length or 10) - scale) - Decimal(1).scaleb(-scale)
        low = Decimal(0) if slave.unsigned else -limit
        return slave.coerce(min(max(Decimal(str(value)), low), limit), column)
    return slave.coerce(float(value), column)
