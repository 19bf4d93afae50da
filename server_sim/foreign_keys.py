"""FOREIGN KEY constraints as InnoDB keeps them: the child's columns, the parent table and
its columns, and what a change of a referenced parent row does to the child rows.

Only InnoDB stores them; MyISAM parses the clause and keeps nothing but the index. The
checks and cascades run in the executor (execute/foreign_key_checks.py), only for tables
that take part in one.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from sqlglot import exp

from .errors import not_supported


class ReferentialAction(Enum):
    RESTRICT = "RESTRICT"
    NO_ACTION = "NO ACTION"  # in InnoDB the same as RESTRICT: checked at once
    CASCADE = "CASCADE"
    SET_NULL = "SET NULL"

    @property
    def refuses(self) -> bool:
        return self in (ReferentialAction.RESTRICT, ReferentialAction.NO_ACTION)


@dataclass(frozen=True)
class ForeignKey:
    name: str
    columns: tuple[str, ...]  # the child's
    parent: str  # the parent table's name, as written
    parent_columns: tuple[str, ...]
    on_delete: ReferentialAction = ReferentialAction.RESTRICT
    on_update: ReferentialAction = ReferentialAction.RESTRICT

    def describe(self, database: str, qualified_parent: bool = False) -> str:
        """The constraint as the server's 1451/1452/1701 messages print it."""
        columns = ", ".join(f"`{c}`" for c in self.columns)
        parents = ", ".join(f"`{c}`" for c in self.parent_columns)
        parent = f"`{database}`.`{self.parent}`" if qualified_parent else f"`{self.parent}`"
        text = f"CONSTRAINT `{self.name}` FOREIGN KEY ({columns}) REFERENCES {parent} ({parents})"
        for clause, action in (("DELETE", self.on_delete), ("UPDATE", self.on_update)):
            if action is not ReferentialAction.RESTRICT:
                text += f" ON {clause} {action.value}"
        return text


_ACTIONS = {action.value: action for action in ReferentialAction}


def foreign_key_from_clause(node: exp.ForeignKey, name: str) -> ForeignKey:
    """A FOREIGN KEY (cols) REFERENCES parent (cols) [ON DELETE ...] [ON UPDATE ...] clause."""
    reference = node.args.get("reference")
    schema = reference.this if reference is not None else None
    if not isinstance(schema, exp.Schema) or not isinstance(schema.this, exp.Table):
        raise not_supported(f"FOREIGN KEY without a parent column list ({node.sql(dialect='mysql')!r})")
    parent = schema.this
    if parent.args.get("db") is not None:
        raise not_supported(f"FOREIGN KEY referencing a table of database {parent.db!r}")
    actions = {"DELETE": ReferentialAction.RESTRICT, "UPDATE": ReferentialAction.RESTRICT}
    for option in reference.args.get("options") or []:
        words = str(option).upper().split()
        if len(words) < 3 or words[0] != "ON" or words[1] not in actions or " ".join(words[2:]) not in _ACTIONS:
            raise not_supported(f"FOREIGN KEY option {option} (InnoDB refuses SET DEFAULT; MATCH is not modelled)")
        actions[words[1]] = _ACTIONS[" ".join(words[2:])]
    columns = tuple(part.name for part in node.expressions)
    parent_columns = tuple(part.name for part in schema.expressions)
    if len(columns) != len(parent_columns) or not columns:
        raise not_supported(f"FOREIGN KEY with {len(columns)} columns referencing {len(parent_columns)}")
    return ForeignKey(name, columns, parent.name, parent_columns, actions["DELETE"], actions["UPDATE"])


def is_foreign_key_clause(node: exp.Expression) -> bool:
    """FOREIGN KEY ... or CONSTRAINT name FOREIGN KEY ... in a table definition."""
    if isinstance(node, exp.Constraint):
        return any(isinstance(part, exp.ForeignKey) for part in node.expressions)
    return isinstance(node, exp.ForeignKey)


def foreign_key_clauses(elements: list[exp.Expression]) -> list[tuple[str, exp.ForeignKey]]:
    """The FOREIGN KEY clauses among a definition's elements, each with the name its
    CONSTRAINT gives it ("" when none)."""
    found = []
    for node in elements:
        if isinstance(node, exp.Constraint) and is_foreign_key_clause(node):
            if len(node.expressions) != 1:
                raise not_supported(f"table element {node.sql(dialect='mysql')}")
            found.append((node.name, node.expressions[0]))
        elif isinstance(node, exp.ForeignKey):
            found.append(("", node))
    return found


def generated_name(table: str, taken: set[str]) -> str:
    """InnoDB's name for an unnamed constraint: <table>_ibfk_<n>."""
    number = 1
    while f"{table}_ibfk_{number}".lower() in taken:
        number += 1
    return f"{table}_ibfk_{number}"
