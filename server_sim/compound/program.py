"""The nodes of a compound statement, as the reader builds them and the executor runs them.

A plain SQL statement of a body keeps its text as written and where in that text each
local variable is read: the server logs the statement with each of them replaced by
`NAME_CONST('name', value)` (sp_head::subst_spvars), and runs it with their values."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from sqlglot import exp

from ..statement import RowVersion, Statement, row_version
from ..types import ColumnType


@dataclass(frozen=True)
class VariableReference:
    """A local variable or parameter read by a statement, at `start`..`end` of its text."""

    name: str  # lower-case
    start: int
    end: int  # exclusive
    in_limit: bool = False  # LIMIT n: logged as the plain number


@dataclass(frozen=True)
class Expression:
    """An expression of a body (a condition, a DEFAULT, a SET value, a RETURN value)."""

    text: str
    tree: exp.Expression


@dataclass(frozen=True)
class SqlStatement:
    """A plain statement of a body; `into`: SELECT ... INTO's targets (a local variable's
    lower-case name, or `@name` for a user variable)."""

    text: str
    statement: Statement
    references: tuple[VariableReference, ...] = ()
    into: tuple[str, ...] = ()
    line: int = 1  # the line of the body it starts on, from 1


@dataclass(frozen=True)
class Declare:
    names: tuple[str, ...]  # as written
    type: ColumnType
    default: Expression | None = None


@dataclass(frozen=True)
class DeclareCursor:
    name: str
    query: SqlStatement


@dataclass(frozen=True)
class DeclareCondition:
    """DECLARE name CONDITION FOR SQLSTATE 'x' | code: a name handlers may use for it."""

    name: str
    value: str


class HandlerKind(Enum):
    CONTINUE = "CONTINUE"
    EXIT = "EXIT"


@dataclass(frozen=True)
class DeclareHandler:
    """A handler for conditions: `SQLEXCEPTION`, `SQLWARNING`, `NOT FOUND`, `SQLSTATE 'xxxxx'` or an error code."""

    kind: HandlerKind
    conditions: tuple[str, ...]
    body: Node


@dataclass(frozen=True)
class Assignment:
    """`target = value`: a local variable (lower-case), or `NEW.col` (row_column set) in a trigger."""

    target: str
    value: Expression
    row_column: str | None = None


@dataclass(frozen=True)
class SetVariables:
    assignments: tuple[Assignment, ...]


@dataclass(frozen=True)
class Block:
    label: str | None
    body: tuple[Node, ...]


@dataclass(frozen=True)
class If:
    branches: tuple[tuple[Expression, tuple[Node, ...]], ...]
    otherwise: tuple[Node, ...] | None = None


@dataclass(frozen=True)
class Case:
    """CASE [subject] WHEN ... THEN ... [ELSE ...] END CASE (1339 when nothing matches and no ELSE)."""

    subject: Expression | None
    branches: tuple[tuple[Expression, tuple[Node, ...]], ...]
    otherwise: tuple[Node, ...] | None = None


class LoopKind(Enum):
    WHILE = "WHILE"
    REPEAT = "REPEAT"
    LOOP = "LOOP"


@dataclass(frozen=True)
class Loop:
    """WHILE cond DO ... / REPEAT ... UNTIL cond / LOOP ...: `condition` is WHILE's test
    before each pass or REPEAT's after it."""

    kind: LoopKind
    label: str | None
    body: tuple[Node, ...]
    condition: Expression | None = None


@dataclass(frozen=True)
class Leave:
    label: str


@dataclass(frozen=True)
class Iterate:
    label: str


@dataclass(frozen=True)
class Return:
    value: Expression
    line: int = 1  # the line of the body it is on, from 1 (MariaDB's Note 4094 names it)


class CursorAction(Enum):
    OPEN = "OPEN"
    FETCH = "FETCH"
    CLOSE = "CLOSE"


@dataclass(frozen=True)
class CursorStatement:
    action: CursorAction
    cursor: str
    targets: tuple[str, ...] = ()  # FETCH ... INTO


@dataclass(frozen=True)
class Run:
    statement: SqlStatement


Node = Declare | DeclareCondition | DeclareCursor | DeclareHandler | SetVariables | Block | If | Case | Loop | Leave | Iterate | Return | CursorStatement | Run


def plain_statements(nodes: tuple[Node, ...]) -> list[SqlStatement]:
    """Every plain statement of a body, cursors' queries and handlers' bodies included, in order."""
    found: list[SqlStatement] = []
    for node in nodes:
        if isinstance(node, Run):
            found.append(node.statement)
        elif isinstance(node, DeclareCursor):
            found.append(node.query)
        elif isinstance(node, DeclareHandler):
            found.extend(plain_statements((node.body,)))
        elif isinstance(node, (Block, Loop)):
            found.extend(plain_statements(node.body))
        elif isinstance(node, (If, Case)):
            for _, branch in node.branches:
                found.extend(plain_statements(branch))
            found.extend(plain_statements(node.otherwise or ()))
    return found


def expressions(nodes: tuple[Node, ...]) -> list[exp.Expression]:
    """Every expression of a body outside its plain statements (conditions, values)."""
    found: list[exp.Expression] = []
    for node in nodes:
        if isinstance(node, Declare) and node.default is not None:
            found.append(node.default.tree)
        elif isinstance(node, SetVariables):
            found.extend(a.value.tree for a in node.assignments)
        elif isinstance(node, Return):
            found.append(node.value.tree)
        elif isinstance(node, DeclareHandler):
            found.extend(expressions((node.body,)))
        elif isinstance(node, (Block, Loop)):
            found.extend([node.condition.tree] if isinstance(node, Loop) and node.condition else [])
            found.extend(expressions(node.body))
        elif isinstance(node, (If, Case)):
            found.extend([node.subject.tree] if isinstance(node, Case) and node.subject else [])
            for condition, branch in node.branches:
                found.append(condition.tree)
                found.extend(expressions(branch))
            found.extend(expressions(node.otherwise or ()))
    return found


def row_references(nodes: tuple[Node, ...]) -> list[tuple[RowVersion, str]]:
    """Every NEW.col / OLD.col a trigger's compound body reads or assigns."""
    found = [(RowVersion.NEW, column) for column in assigned_columns(nodes)]
    trees = [sql.statement.ast for sql in plain_statements(nodes) if sql.statement.ast is not None] + expressions(nodes)
    for tree in trees:
        for node in tree.find_all(exp.Column):
            version = row_version(node)
            if version is not None:
                found.append((version, node.name))
    return found


def assigned_columns(nodes: tuple[Node, ...]) -> list[str]:
    """The NEW columns a trigger's compound body assigns (SET NEW.col = ...)."""
    found: list[str] = []
    for node in nodes:
        if isinstance(node, SetVariables):
            found.extend(a.row_column for a in node.assignments if a.row_column is not None)
        elif isinstance(node, DeclareHandler):
            found.extend(assigned_columns((node.body,)))
        elif isinstance(node, (Block, Loop)):
            found.extend(assigned_columns(node.body))
        elif isinstance(node, (If, Case)):
            for _, branch in node.branches:
                found.extend(assigned_columns(branch))
            found.extend(assigned_columns(node.otherwise or ()))
    return found


def has_return(nodes: tuple[Node, ...]) -> bool:
    """Whether a function body has a RETURN anywhere (without one: 1320 at CREATE)."""
    for node in nodes:
        if isinstance(node, Return):
            return True
        if isinstance(node, (Block, Loop)) and has_return(node.body):
            return True
        if isinstance(node, DeclareHandler) and has_return((node.body,)):
            return True
        if isinstance(node, (If, Case)) and (any(has_return(branch) for _, branch in node.branches) or has_return(node.otherwise or ())):
            return True
    return False
