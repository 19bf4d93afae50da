"""ENUM and SET columns: their member lists and how the server reads a value into one.

A value is stored as its text (an ENUM's member, a SET's members joined by commas in
declaration order), which is what the server shows and compares strings with; its number
(an ENUM's index, 1-based with 0 the '' error value; a SET's bitmask) is what it sorts
by, compares numbers with and writes in row events (Field_enum / Field_set). The rules
are Field_enum::store and Field_set::store: a string matches a member ignoring case and,
for ENUM, trailing spaces; a string that matches none but is a number is read as the
number; an invalid value is WARN_DATA_TRUNCATED (1265), an error in strict mode, else a
warning and '' (a SET keeps the members it did find).
"""

from __future__ import annotations

from decimal import Decimal

import sqlglot
from sqlglot import exp

from .errors import ErrorCode, SqlError, not_supported

ENUM, SET = "ENUM", "SET"
MAX_ENUM_MEMBERS = 65535
MAX_SET_MEMBERS = 64


def members_from_sqlglot(name: str, column: str, kind: exp.DataType) -> tuple[str, ...]:
    """The member list an ENUM(...) / SET(...) declares: trailing spaces dropped (as the
    server drops them), duplicates under the collation refused (1291), a SET member with a
    comma 1367, too many members 1097."""
    members: list[str] = []
    for param in kind.expressions:
        node = param.this if isinstance(param, exp.DataTypeParam) else param
        if not isinstance(node, exp.Literal) or not node.is_string:
            raise SqlError(ErrorCode.ER_PARSE_ERROR, f"{name} members must be strings")
        members.append(node.this.rstrip(" "))
    if not members:
        raise SqlError(ErrorCode.ER_PARSE_ERROR, f"{name} needs at least one member")
    if "" in members:
        raise not_supported(f"{name} with an empty-string member (the simulator keeps '' for the error value)")
    if not all(member.isascii() for member in members):
        raise not_supported(f"{name} member outside ASCII (compared under the collation)")
    seen: set[str] = set()
    for member in members:
        if member.lower() in seen:
            raise SqlError(ErrorCode.ER_DUPLICATED_VALUE_IN_TYPE, column, member, name)
        seen.add(member.lower())
    if name == SET:
        comma = next((member for member in members if "," in member), None)
        if comma is not None:
            raise SqlError(ErrorCode.ER_ILLEGAL_VALUE_FOR_TYPE, "set", comma)
        if len(members) > MAX_SET_MEMBERS:
            raise SqlError(ErrorCode.ER_TOO_BIG_SET, column)
    elif len(members) > MAX_ENUM_MEMBERS:
        raise not_supported(f"ENUM with {len(members)} members")
    return tuple(members)


def quoted(member: str) -> str:
    return "'" + member.replace("\\", "\\\\").replace("'", "''") + "'"


def type_sql(name: str, members: tuple[str, ...]) -> str:
    """The type as the server prints it: ENUM('a','b'); a type read from a table map,
    whose members the event does not carry, by its name alone."""
    if not members:
        return name
    return f"{name}({','.join(quoted(member) for member in members)})"


def pack_length(name: str, members: tuple[str, ...]) -> int:
    """Bytes a value takes in the record and in row events: an ENUM's index 1 or 2, a
    SET's bitmask 1, 2, 3, 4 or 8 (get_enum_pack_length, get_set_pack_length)."""
    if name == ENUM:
        return 1 if len(members) < 256 else 2
    size = (len(members) + 7) // 8
    return 8 if size > 4 else size


def _find(members: tuple[str, ...], text: str) -> int:
    """The 1-based position of the member `text` names (0: none), ignoring case."""
    if not text.isascii():
        if text in members:
            return members.index(text) + 1
        raise not_supported("an ENUM/SET value outside ASCII (compared under the collation)")
    folded = text.lower()
    for position, member in enumerate(members, start=1):
        if member.lower() == folded:
            return position
    return 0


def _as_number(text: str, limit_digits: int) -> int | None:
    """A string that is all digits read as a number (the server's "numbers with LOAD DATA"
    reading); None when it is not one."""
    if text and len(text) < limit_digits and text.isdigit():
        return int(text)
    return None


def read(name: str, members: tuple[str, ...], value: object) -> tuple[int, bool]:
    """The number the server stores for `value` and whether it was truncated (1265)."""
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, (float, Decimal)):
        raise not_supported(f"a non-integer number assigned to an {name} column")
    if isinstance(value, bytes):
        value = value.decode(errors="replace")
    if isinstance(value, int):
        return _read_number(name, members, value)
    if not isinstance(value, str):
        raise not_supported(f"a {type(value).__name__} value assigned to an {name} column")
    return _read_enum_text(members, value) if name == ENUM else _read_set_text(members, value)


def _read_number(name: str, members: tuple[str, ...], number: int) -> tuple[int, bool]:
    if name == ENUM:
        if 0 < number <= len(members):
            return number, False
        return 0, True
    largest = (1 << len(members)) - 1
    if number < 0:
        number &= (1 << 64) - 1  # the server reads a negative number as unsigned
    if number > largest:
        return number & largest, True
    return number, False


def _read_enum_text(members: tuple[str, ...], text: str) -> tuple[int, bool]:
    text = text.rstrip(" ")
    found = _find(members, text)
    if found:
        return found, False
    number = _as_number(text, 6)
    if number is not None and 0 < number <= len(members):
        return number, False
    return 0, True


def _read_set_text(members: tuple[str, ...], text: str) -> tuple[int, bool]:
    if not text:
        return 0, False
    bits, truncated = 0, False
    for element in text.split(","):
        found = _find(members, element)
        if found:
            bits |= 1 << (found - 1)
        elif element.rstrip(" ") != element and _find(members, element.rstrip(" ")):
            raise not_supported("a SET element with trailing spaces (the collations' PAD rules differ)")
        else:
            truncated = True
    if not bits:
        number = _as_number(text, 22)
        if number is not None:
            return (number, False) if number <= (1 << len(members)) - 1 else (0, True)
    return bits, truncated


def text_of(name: str, members: tuple[str, ...], number: int) -> str:
    """The text the server shows for a stored number: '' for an ENUM's 0 (or an index the
    list does not have), a SET's members in declaration order."""
    if name == ENUM:
        return members[number - 1] if 0 < number <= len(members) else ""
    return ",".join(member for bit, member in enumerate(members) if number >> bit & 1)


def number_of(name: str, members: tuple[str, ...], text: str) -> int:
    """The number a stored text stands for (its index or bitmask)."""
    if name == ENUM:
        return _find(members, text)
    return sum(1 << (_find(members, element) - 1) for element in text.split(",") if element and _find(members, element))


def coerce(name: str, members: tuple[str, ...], value: object, column: str, row: int, lenient: bool = False) -> tuple[str, SqlError | None]:
    """The text the server stores for `value`, and the 1265 it raises (strict mode) or
    warns of (`lenient`: a non-strict or IGNORE statement, which stores what it read)."""
    number, truncated = read(name, members, value)
    error = SqlError(ErrorCode.ER_WARN_DATA_TRUNCATED, column, row) if truncated else None
    if error is not None and not lenient:
        raise error
    return text_of(name, members, number), error


def ordinal_sql(name: str, members: tuple[str, ...], column: exp.Expression) -> exp.Expression:
    """A MySQL expression over the stored text giving the value's number (NULL for NULL):
    what an ENUM/SET column means where the server uses its number, ORDER BY and a
    comparison with a number. Written as SQL the statement could have held, so it is
    translated (and evaluated) as any other."""
    if name == ENUM:
        number = f"FIELD({_PLACEHOLDER}, {', '.join(quoted(m) for m in members)})"
    else:
        number = " + ".join(f"IF(INSTR(CONCAT(',', {_PLACEHOLDER}, ','), {quoted(',' + m + ',')}) > 0, {1 << bit}, 0)" for bit, m in enumerate(members))
    tree = sqlglot.parse_one(f"(CASE WHEN {_PLACEHOLDER} IS NULL THEN NULL ELSE {number} END)", read="mysql")
    return tree.transform(lambda node: column.copy() if isinstance(node, exp.Column) and node.name == _PLACEHOLDER else node)


_PLACEHOLDER = "_rpl_enum_set_column_placeholder"


def _duckdb_quoted(member: str) -> str:
    return "'" + member.replace("'", "''") + "'"


def number_sql(name: str, members: tuple[str, ...], column: str) -> str:
    """DuckDB SQL giving the number of the stored text in `column` (SQL text): for the
    storage's own orders (the primary key's), which no statement translates."""
    if name == ENUM:
        cases = " ".join(f"WHEN {_duckdb_quoted(m)} THEN {position}" for position, m in enumerate(members, start=1))
        return f"(CASE {column} {cases} ELSE 0 END)"
    terms = " + ".join(f"(CASE WHEN list_contains(string_split({column}, ','), {_duckdb_quoted(m)}) THEN {1 << bit} ELSE 0 END)" for bit, m in enumerate(members))
    return f"({terms})"


# Where a column's text is what the server uses: it is left as it is stored.
_TEXT_PARENTS = (
    exp.Select, exp.Alias, exp.Group, exp.Distinct, exp.Is, exp.Concat, exp.ConcatWs, exp.Lower, exp.Upper,
    exp.Count, exp.Schema, exp.Tuple, exp.Like, exp.Coalesce,
)
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ)


def _is_number(node: exp.Expression) -> bool:
    if isinstance(node, exp.Neg):
        node = node.this
    return isinstance(node, exp.Literal) and not node.is_string


def _is_text(node: exp.Expression) -> bool:
    return (isinstance(node, exp.Literal) and node.is_string) or isinstance(node, (exp.Column, exp.Null))


def _is_assignment_target(node: exp.Column) -> bool:
    """`c` in UPDATE ... SET c = ... or ON DUPLICATE KEY UPDATE c = ...: a name, no value."""
    parent = node.parent
    return isinstance(parent, exp.EQ) and parent.this is node and not isinstance(parent.parent, (exp.Where, exp.Having, exp.Connector, exp.Not, exp.Paren, exp.If, exp.Join))


def _numeric_use(node: exp.Column) -> bool | None:
    """Whether the server uses the column's number here (True), its text (False), or
    neither in a way modelled (None)."""
    parent = node.parent
    if parent is None:
        return False  # the value alone (an assignment's source): its text
    if isinstance(parent, (exp.Ordered, exp.Order)):
        return True
    if isinstance(parent, _COMPARISONS):
        other = parent.expression if parent.this is node else parent.this
        if _is_number(other):
            return True
        return False if _is_text(other) else None
    if isinstance(parent, exp.In) and parent.this is node and parent.expressions:
        if all(_is_number(item) for item in parent.expressions):
            return True
        return False if all(_is_text(item) for item in parent.expressions) else None
    if isinstance(parent, _TEXT_PARENTS):
        return False
    return None


def _column_key(node: exp.Column, columns: dict[str, tuple[str, tuple[str, ...]] | None]) -> str:
    key = node.name.lower()
    qualified = f"{node.table.lower()}.{key}" if node.table else ""
    return qualified if qualified in columns else key


def _order_by_select_items(order: exp.Order, select: exp.Select, columns: dict[str, tuple[str, tuple[str, ...]] | None]) -> None:
    """`ORDER BY 2` and `ORDER BY alias` sort by a select item: by its number when that
    item is an ENUM/SET column."""
    items = select.expressions
    aliases = {item.alias.lower(): item.this for item in items if isinstance(item, exp.Alias)}
    for ordered in order.expressions:
        target = ordered.this if isinstance(ordered, exp.Ordered) else ordered
        chosen: exp.Expression | None = None
        if isinstance(target, exp.Literal) and not target.is_string and target.name.isdigit():
            if any(isinstance(item, exp.Star) or (isinstance(item, exp.Column) and isinstance(item.this, exp.Star)) for item in items):
                raise not_supported("ORDER BY a position over SELECT * with an ENUM/SET column (its number or text as the server takes it)")
            position = int(target.name)
            chosen = items[position - 1] if 0 < position <= len(items) else None
        elif isinstance(target, exp.Column) and not target.table and target.name.lower() in aliases:
            chosen = aliases[target.name.lower()]
        if isinstance(chosen, exp.Alias):
            chosen = chosen.this
        if not isinstance(chosen, exp.Column) or _column_key(chosen, columns) not in columns:
            continue
        described = columns[_column_key(chosen, columns)]
        if described is None:
            raise not_supported(f"ENUM/SET column {chosen.name} in ORDER BY (its number or text as the server takes it)")
        target.replace(ordinal_sql(described[0], described[1], chosen))


def rewrite_references(tree: exp.Expression, columns: dict[str, tuple[str, tuple[str, ...]] | None]) -> None:
    """Put each ENUM/SET column reference where the server uses its number (ORDER BY, a
    comparison with a number) as the expression giving that number; refuse (1235) a use
    not modelled (arithmetic, a function of it). `columns`: by lower-case name, the type
    name and members (None: the name is an ENUM/SET column in one table and not in another,
    so which one is meant is not known here), and by `table.name` for a qualified
    reference. Changes `tree` in place."""
    references = list(tree.find_all(exp.Column))
    for order in list(tree.find_all(exp.Order)):
        if isinstance(order.parent, exp.Select):
            _order_by_select_items(order, order.parent, columns)
    for node in references:
        key = _column_key(node, columns)
        if key not in columns or _is_assignment_target(node):
            continue
        use = _numeric_use(node)
        if use is False:
            continue
        described = columns[key]
        if use is None or described is None:
            shown = (node.parent or node).sql(dialect="mysql")
            raise not_supported(f"ENUM/SET column {node.name} used as {shown!r} (its number or text as the server takes it)")
        node.replace(ordinal_sql(described[0], described[1], node))
