"""The MySQL type a column definition declares, read from sqlglot's parse: the one place
CREATE TABLE's, ALTER TABLE's and a stored program's type words become a ColumnType, and a
type the simulator does not model is refused."""

from __future__ import annotations

from sqlglot import exp

from . import enum_set
from . import temporal_types as temporal
from .bit_type import MAX_BITS
from .errors import Condition, ErrorCode, SqlError, not_supported
from .types import BASES, FRACTIONAL, ColumnType, TypeFamily

# sqlglot's names for MySQL types, mapped to MySQL's name and signedness.
FROM_SQLGLOT: dict[exp.DataType.Type, tuple[str, bool]] = {
    exp.DataType.Type.TINYINT: ("TINYINT", False),
    exp.DataType.Type.UTINYINT: ("TINYINT", True),
    exp.DataType.Type.BOOLEAN: ("TINYINT", False),
    exp.DataType.Type.SMALLINT: ("SMALLINT", False),
    exp.DataType.Type.USMALLINT: ("SMALLINT", True),
    exp.DataType.Type.MEDIUMINT: ("MEDIUMINT", False),
    exp.DataType.Type.UMEDIUMINT: ("MEDIUMINT", True),
    exp.DataType.Type.INT: ("INT", False),
    exp.DataType.Type.UINT: ("INT", True),
    exp.DataType.Type.BIGINT: ("BIGINT", False),
    exp.DataType.Type.UBIGINT: ("BIGINT", True),
    exp.DataType.Type.DECIMAL: ("DECIMAL", False),
    exp.DataType.Type.UDECIMAL: ("DECIMAL", True),
    exp.DataType.Type.FLOAT: ("FLOAT", False),
    exp.DataType.Type.DOUBLE: ("DOUBLE", False),
    exp.DataType.Type.CHAR: ("CHAR", False),
    exp.DataType.Type.VARCHAR: ("VARCHAR", False),
    exp.DataType.Type.TINYTEXT: ("TINYTEXT", False),
    exp.DataType.Type.TEXT: ("TEXT", False),
    exp.DataType.Type.MEDIUMTEXT: ("MEDIUMTEXT", False),
    exp.DataType.Type.LONGTEXT: ("LONGTEXT", False),
    exp.DataType.Type.BINARY: ("BINARY", False),
    exp.DataType.Type.VARBINARY: ("VARBINARY", False),
    exp.DataType.Type.TINYBLOB: ("TINYBLOB", False),
    exp.DataType.Type.BLOB: ("BLOB", False),
    exp.DataType.Type.MEDIUMBLOB: ("MEDIUMBLOB", False),
    exp.DataType.Type.LONGBLOB: ("LONGBLOB", False),
    exp.DataType.Type.DATE: ("DATE", False),
    exp.DataType.Type.DATETIME: ("DATETIME", False),
    exp.DataType.Type.TIMESTAMP: ("TIMESTAMP", False),
    exp.DataType.Type.TIMESTAMPTZ: ("TIMESTAMP", False),
    exp.DataType.Type.TIME: ("TIME", False),
    exp.DataType.Type.YEAR: ("YEAR", False),
    exp.DataType.Type.BIT: ("BIT", False),
    exp.DataType.Type.JSON: ("JSON", False),
}


def column_type_from_sqlglot(kind: exp.DataType, column: str = "") -> ColumnType:
    """The MySQL type a `CREATE TABLE` column definition declares (for `column`)."""
    if kind.this in (exp.DataType.Type.ENUM, exp.DataType.Type.SET):
        name = kind.this.name
        return ColumnType(name, members=enum_set.members_from_sqlglot(name, column, kind))
    try:
        name, unsigned = FROM_SQLGLOT[kind.this]
    except KeyError:
        raise not_supported(f"column type {kind.sql(dialect='mysql')}") from None
    params = [int(param.this.name) for param in kind.expressions if isinstance(param.this, exp.Literal)]
    family = BASES[name].family
    if kind.this is exp.DataType.Type.BOOLEAN:
        return ColumnType("TINYINT")
    if family is TypeFamily.BIT:
        bits = params[0] if params else 1
        if not 1 <= bits <= MAX_BITS:
            raise not_supported(f"BIT({bits}) (1 to {MAX_BITS} bits; the server says 1439)")
        return ColumnType("BIT", length=bits)
    if family is TypeFamily.DECIMAL:
        precision = params[0] if params else 10
        scale = params[1] if len(params) > 1 else 0
        if precision > 38:
            raise not_supported(f"DECIMAL precision {precision} (the simulator stores at most 38 digits)")
        return ColumnType(name, unsigned, precision, scale)
    if name in ("CHAR", "BINARY"):
        return ColumnType(name, length=params[0] if params else 1)
    if family in FRACTIONAL:
        return ColumnType(name, scale=temporal.fsp_of(params[0] if params else 0, column) or None)
    if name == "YEAR" and params and params[0] != 4:
        raise not_supported(f"YEAR({params[0]}) (only YEAR(4) exists since MySQL 5.7)")
    if name in ("VARCHAR", "VARBINARY"):
        if not params:
            raise SqlError(ErrorCode.ER_PARSE_ERROR, f"{name} needs a length")
        return ColumnType(name, length=params[0])
    return ColumnType(name, unsigned)


_INTEGERS = frozenset(t for t, (name, _) in FROM_SQLGLOT.items() if name in ("TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT") and t is not exp.DataType.Type.BOOLEAN)
_FLOATS = frozenset(t for t, (name, _) in FROM_SQLGLOT.items() if name in ("FLOAT", "DOUBLE"))
_DECIMALS = frozenset(t for t, (name, _) in FROM_SQLGLOT.items() if name == "DECIMAL")


def deprecated_type_syntax(statement: exp.Expression) -> list[Condition]:
    """MySQL 8.0's warnings for the type syntax it deprecates, one per use, in the order of
    the column definitions: an integer's display width (INT(11)), a FLOAT's or DOUBLE's
    digits (FLOAT(7,2)), UNSIGNED on a DECIMAL, FLOAT or DOUBLE (1681), and the BINARY
    attribute of a text type (1287)."""
    warnings: list[Condition] = []
    for definition in statement.find_all(exp.ColumnDef):
        kind = definition.args.get("kind")
        if not isinstance(kind, exp.DataType):
            continue
        found: list[ErrorCode] = []
        if kind.this in _INTEGERS and kind.expressions:
            found.append(ErrorCode.ER_WARN_DEPRECATED_INTEGER_DISPLAY_WIDTH)
        if kind.this in _FLOATS and len(kind.expressions) == 2:
            found.append(ErrorCode.ER_WARN_DEPRECATED_FLOAT_DIGITS)
        if (kind.this in _FLOATS or kind.this in _DECIMALS) and FROM_SQLGLOT[kind.this][1]:
            found.append(ErrorCode.ER_WARN_DEPRECATED_FLOAT_UNSIGNED)
        warnings += [Condition("Warning", code.code, code.error_name, code.template) for code in found]
        if any(isinstance(constraint.args.get("kind"), exp.BinaryColumnConstraint) for constraint in definition.args.get("constraints") or []):
            code = ErrorCode.ER_WARN_DEPRECATED_SYNTAX
            warnings.append(Condition("Warning", code.code, code.error_name, code.template % ("BINARY as attribute of a type", "a CHARACTER SET clause with _bin collation")))
    return warnings
