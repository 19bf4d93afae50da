"""A key's parts as a CREATE TABLE, ALTER TABLE or CREATE INDEX writes them: a column,
or its first N characters (`KEY meta_key (meta_key(191))`, as WordPress and MediaWiki
schemas index long text), and the server's checks of them (sql_table.cc,
prepare_key_column).

A prefix part of a non-unique key changes which rows an index lookup visits, never which
rows a statement reads or changes: the simulator's lookups read the whole column and
compare rows as the server's do, so such a key is modelled. A UNIQUE or PRIMARY key over
a prefix makes rows duplicates by their first characters, which the key checks do not
model: refused (1235).
"""

from __future__ import annotations

from sqlglot import exp

from .errors import ErrorCode, SqlError, not_supported
from .table import Column, Key, KeyKind
from .types import TypeFamily

_PREFIXED = (TypeFamily.STRING, TypeFamily.BINARY)


def key_parts(expressions: list[exp.Expression]) -> tuple[tuple[str, ...], tuple[tuple[str, int], ...]]:
    """The column names of a key's parts, and the (column, length) of its prefix parts."""
    names: list[str] = []
    prefixes: list[tuple[str, int]] = []
    for part in expressions:
        column = part.this if isinstance(part, exp.Ordered) else part
        if isinstance(column, exp.ColumnPrefix):
            length = column.expression
            if not (isinstance(length, exp.Literal) and length.is_int and int(length.name) > 0):
                raise not_supported(f"key part {part.sql(dialect='mysql')}")
            prefixes.append((column.name, int(length.name)))
        names.append(column.name)
    return tuple(names), tuple(prefixes)


def checked_parts(key: Key, columns: list[Column], blob_keys_by_prefix: bool = False) -> Key:
    """`key` with its prefix parts checked against its columns' types: a prefix of no
    string is 1089, and so is one longer than its column; a prefix as long as a CHAR or
    VARCHAR column is the whole column; a BLOB or TEXT column needs a prefix (1170;
    MariaDB keeps a UNIQUE one unique by a hash of the value and, `blob_keys_by_prefix`,
    keys a non-unique one by its first bytes: refused)."""
    kept: list[tuple[str, int]] = []
    for column in columns:
        length = key.prefix(column.name)
        kind = column.type
        if length is None:
            if kind.is_blob:
                if key.unique:
                    raise not_supported(f"a UNIQUE key on the whole BLOB/TEXT column {column.name} (kept unique by a hash of it)")
                if blob_keys_by_prefix:
                    raise not_supported(f"a key on the whole BLOB/TEXT column {column.name} (MariaDB keys its first bytes, with Note 1071)")
                raise SqlError(ErrorCode.ER_BLOB_KEY_WITHOUT_LENGTH, column.name)
            continue
        if kind.family not in _PREFIXED or kind.is_enum_or_set:
            raise SqlError(ErrorCode.ER_WRONG_SUB_KEY)
        if not kind.is_blob and length > (kind.length or 0):
            raise SqlError(ErrorCode.ER_WRONG_SUB_KEY)
        if not kind.is_blob and length == kind.length:
            continue  # the whole column: the server keeps no prefix
        if key.kind is not KeyKind.INDEX:
            raise not_supported(f"a {'PRIMARY' if key.kind is KeyKind.PRIMARY else 'UNIQUE'} key on the first {length} characters of {column.name} (rows duplicate by their prefix)")
        kept.append((column.name, length))
    return Key(key.name, key.kind, key.columns, tuple(kept))


def without_outgrown_prefixes(key: Key, columns: list[Column]) -> Key:
    """After an ALTER TABLE: a prefix part whose column is no longer a string, or no longer
    than the prefix, indexes the whole column (mysql_prepare_alter_table unsets its length)."""
    by_name = {column.name.lower(): column for column in columns}
    kept = []
    for name, length in key.prefixes:
        column = by_name.get(name.lower())
        if column is None or column.type.family not in _PREFIXED:
            continue
        if not column.type.is_blob and (column.type.length or 0) <= length:
            continue
        kept.append((name, length))
    return key if len(kept) == len(key.prefixes) else Key(key.name, key.kind, key.columns, tuple(kept))


def part_text(key: Key, column: str) -> str:
    """A key part as SHOW CREATE TABLE writes it: `c` or `c`(N)."""
    length = key.prefix(column)
    return f"`{column}`" if length is None else f"`{column}`({length})"
