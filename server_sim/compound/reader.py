"""Reading a compound statement: the body walked statement by statement. The control
statements (BEGIN ... END, DECLARE, SET of local variables, IF, CASE, WHILE, REPEAT,
LOOP, LEAVE, ITERATE, RETURN, OPEN, FETCH, CLOSE) are recognised here; each plain SQL
statement is handed to the statement parser, each expression parsed as a SELECT's item.
What the simulator does not run (SIGNAL, GET DIAGNOSTICS, FOR loops, ...) is refused with 1235 naming it; what does not read is 1064."""

from __future__ import annotations

from functools import lru_cache

from sqlglot.tokens import TokenType

from ..errors import ErrorCode, SqlError, not_supported
from ..parser import parse_statement
from ..statement import StatementKind
from ..syntax import syntax_error
from .program import (
    Assignment,
    Block,
    Case,
    CursorAction,
    CursorStatement,
    Declare,
    DeclareCondition,
    DeclareCursor,
    DeclareHandler,
    HandlerKind,
    If,
    Iterate,
    Leave,
    Loop,
    LoopKind,
    Node,
    Return,
    Run,
    SetVariables,
    SqlStatement,
)
from .references import find_references
from .tokens import NAMES, TokenCursor, variable_type, without_into

# Statements of the compound-statement grammar the simulator does not run.
_REFUSED = {
    "SIGNAL": "SIGNAL",
    "RESIGNAL": "RESIGNAL",
    "GET": "GET DIAGNOSTICS",
    "GOTO": "GOTO",
    "FOR": "FOR loops",
    "CALL": "CALL inside a stored program",
    "PREPARE": "PREPARE inside a stored program",
    "EXECUTE": "EXECUTE inside a stored program",
    "DEALLOCATE": "DEALLOCATE inside a stored program",
}
_NEW_ROW = "new"


@lru_cache(maxsize=256)
def trigger_program(body: str) -> tuple[Node, ...]:
    """A trigger's compound body, read once per text."""
    return read_body(body, (), in_trigger=True)


def read_body(text: str, parameters: tuple[str, ...], in_trigger: bool = False, in_function: bool = False) -> tuple[Node, ...]:
    """The nodes of a routine's or trigger's body (one statement, usually BEGIN ... END)."""
    reader = Reader(text, parameters, in_trigger, in_function)
    node = reader.statement()
    reader.accept(";")
    if reader.token() is not None:
        raise reader.error()
    return (node,)


class Reader(TokenCursor):
    """Reads one body; `scopes` are the names visible at each nesting level (parameters first)."""

    def __init__(self, text: str, parameters: tuple[str, ...], in_trigger: bool, in_function: bool) -> None:
        super().__init__(text)
        self.scopes: list[set[str]] = [{name.lower() for name in parameters}]
        self.labels: list[str] = []
        self.cursors: set[str] = set()
        self.named_conditions: dict[str, str] = {}  # DECLARE name CONDITION FOR ...: what it stands for
        self.in_trigger = in_trigger
        self.in_function = in_function

    def visible(self) -> set[str]:
        return set().union(*self.scopes)

    def statement(self) -> Node:
        token = self.token()
        if token is None:
            raise self.error()
        if token.token_type in NAMES and self.word(1) == ":":
            label = self.name()
            self.pos += 1
            return self.labelled(label)
        word = self.word()
        if word in ("LOOP", "WHILE", "REPEAT") or (word == "BEGIN" and self.word(1) not in (";", "WORK", "")):
            return self.labelled(None)
        reader = _STATEMENTS.get(word)
        if reader is not None:
            return reader(self)
        if word in _REFUSED:
            raise not_supported(f"{_REFUSED[word]} in a stored program body")
        return self.plain()

    def labelled(self, label: str | None) -> Node:
        if label is not None:
            self.labels.append(label.lower())
        try:
            if self.word() == "BEGIN":
                return self.block(label)
            if self.word() in ("LOOP", "WHILE", "REPEAT"):
                return self.loop(label)
            raise self.error()
        finally:
            if label is not None:
                self.labels.pop()

    def end_label(self, label: str | None) -> None:
        token = self.token()
        if token is not None and token.token_type in NAMES:
            if label is None or token.text.lower() != label.lower():
                raise self.error()
            self.pos += 1

    def statements(self, *ends: str) -> tuple[Node, ...]:
        """Statements, each ended by `;`, up to one of the words `ends`."""
        nodes: list[Node] = []
        while self.word() not in ends:
            nodes.append(self.statement())
            self.expect(";")
        return tuple(nodes)

    def block(self, label: str | None) -> Block:
        self.expect("BEGIN")
        if self.accept("NOT"):
            self.expect("ATOMIC")
        self.scopes.append(set())
        try:
            body = self.statements("END")
        finally:
            self.scopes.pop()
        self.expect("END")
        self.end_label(label)
        return Block(label, body)

    def loop(self, label: str | None) -> Loop:
        kind = LoopKind(self.word())
        self.pos += 1
        condition = None
        if kind is LoopKind.WHILE:
            condition = self.expression("DO")
            self.expect("DO")
        body = self.statements("UNTIL") if kind is LoopKind.REPEAT else self.statements("END")
        if kind is LoopKind.REPEAT:
            self.expect("UNTIL")
            condition = self.expression("END")
        self.expect("END", kind.value)
        self.end_label(label)
        return Loop(kind, label, body, condition)

    def plain(self) -> Run:
        return Run(self.sql_statement(*self.span()))

    def sql_statement(self, start: int, end: int) -> SqlStatement:
        into, source = without_into(self.text[start:end])
        try:
            statement = parse_statement(source)
        except SqlError as error:
            if error.code == ErrorCode.ER_PARSE_ERROR.code:
                raise syntax_error(self.text, start) from None
            raise
        if into and statement.kind is not StatementKind.SELECT:
            raise syntax_error(self.text, start)
        if statement.kind is StatementKind.SELECT and not into and (self.in_function or self.in_trigger):
            raise SqlError(ErrorCode.ER_SP_NO_RETSET, "function" if self.in_function else "trigger")
        if self.in_function or self.in_trigger:
            if statement.kind.is_ddl or statement.kind.is_transaction_control:
                raise SqlError(ErrorCode.ER_COMMIT_NOT_ALLOWED_IN_SF_OR_TRG)
        targets = tuple(self.variable(name) for name in into)
        line = self.text.count("\n", 0, start) + 1
        return SqlStatement(source, statement, find_references(source, statement, self.visible()), targets, line)

    def variable(self, name: str) -> str:
        """A target's name: `@user` as is, a local variable lower-case (1327 if not declared)."""
        if name.startswith("@"):
            return name
        if name.lower() not in self.visible():
            raise SqlError(ErrorCode.ER_SP_UNDECLARED_VAR, name)
        return name.lower()

    # -- control statements -------------------------------------------------------------
    def declare(self) -> Node:
        self.expect("DECLARE")
        if self.word() in ("CONTINUE", "EXIT", "UNDO") and self.word(1) == "HANDLER":
            return self.handler()
        if self.word(1) == "CURSOR":
            name = self.name().lower()
            self.expect("CURSOR", "FOR")
            query = self.sql_statement(*self.span())
            if query.statement.kind is not StatementKind.SELECT or query.into:
                raise self.error()
            self.cursors.add(name)
            return DeclareCursor(name, query)
        if self.word(1) == "CONDITION":
            name = self.name().lower()
            self.expect("CONDITION", "FOR")
            value = self.condition()
            if value in ("SQLEXCEPTION", "SQLWARNING", "NOT FOUND"):
                raise self.error()
            self.named_conditions[name] = value
            return DeclareCondition(name, value)
        names = [self.name()]
        while self.accept(","):
            names.append(self.name())
        data_type = variable_type(self.text[slice(*self.span("DEFAULT"))])
        default = self.expression() if self.accept("DEFAULT") else None
        for name in names:
            if name.lower() in self.scopes[-1]:
                raise SqlError(ErrorCode.ER_SP_DUP_VAR, name)
            self.scopes[-1].add(name.lower())
        return Declare(tuple(names), data_type, default)

    def handler(self) -> DeclareHandler:
        word = self.word()
        if word == "UNDO":
            raise not_supported("UNDO handlers")
        self.pos += 1
        self.expect("HANDLER", "FOR")
        conditions = [self.condition()]
        while self.accept(","):
            conditions.append(self.condition())
        return DeclareHandler(HandlerKind(word), tuple(conditions), self.statement())

    def condition(self) -> str:
        token = self.token()
        if self.accept("SQLEXCEPTION") or self.accept("SQLWARNING"):
            return self.tokens[self.pos - 1].text.upper()
        if self.accept("NOT"):
            self.expect("FOUND")
            return "NOT FOUND"
        if self.accept("SQLSTATE"):
            self.accept("VALUE")
            token = self.token()
            if token is None or token.token_type is not TokenType.STRING:
                raise self.error()
            self.pos += 1
            return f"SQLSTATE {token.text}"
        if token is not None and token.token_type is TokenType.NUMBER:
            self.pos += 1
            return token.text
        if token is not None and token.token_type in NAMES and token.text.lower() in self.named_conditions:
            self.pos += 1
            return self.named_conditions[token.text.lower()]
        raise self.error()

    def set_statement(self) -> Node:
        start = self.pos
        self.expect("SET")
        assignments: list[Assignment] = []
        while True:
            target, column = self.set_target()
            if target is None:
                if assignments:
                    raise not_supported("a SET that assigns local variables and other variables together")
                self.pos = start
                return self.plain()
            if self.word() not in ("=", ":="):
                raise self.error()
            self.pos += 1
            assignments.append(Assignment(target, self.expression(","), column))
            if not self.accept(","):
                return SetVariables(tuple(assignments))

    def set_target(self) -> tuple[str | None, str | None]:
        """A SET target that is a local variable (its name) or `NEW.col` in a trigger."""
        if self.in_trigger and self.word() in ("NEW", "OLD") and self.word(1) == ".":
            if self.word() == "OLD":
                raise SqlError(ErrorCode.ER_TRG_CANT_CHANGE_ROW, "OLD", "")
            self.pos += 2
            return _NEW_ROW, self.name()
        token = self.token()
        if token is not None and token.token_type in NAMES and token.text.lower() in self.visible() and self.word(1) in ("=", ":="):
            self.pos += 1
            return token.text.lower(), None
        return None, None

    def if_statement(self) -> If:
        self.expect("IF")
        branches = []
        while True:
            condition = self.expression("THEN")
            self.expect("THEN")
            branches.append((condition, self.statements("ELSEIF", "ELSE", "END")))
            if not self.accept("ELSEIF"):
                break
        otherwise = self.statements("END") if self.accept("ELSE") else None
        self.expect("END", "IF")
        return If(tuple(branches), otherwise)

    def case_statement(self) -> Case:
        self.expect("CASE")
        subject = self.expression("WHEN") if self.word() != "WHEN" else None
        branches = []
        while self.accept("WHEN"):
            value = self.expression("THEN")
            self.expect("THEN")
            branches.append((value, self.statements("WHEN", "ELSE", "END")))
        if not branches:
            raise self.error()
        otherwise = self.statements("END") if self.accept("ELSE") else None
        self.expect("END", "CASE")
        return Case(subject, tuple(branches), otherwise)

    def jump(self) -> Node:
        word = self.word()
        self.pos += 1
        label = self.name()
        if label.lower() not in self.labels:
            raise SqlError(ErrorCode.ER_SP_LILABEL_MISMATCH, word, label)
        return Leave(label.lower()) if word == "LEAVE" else Iterate(label.lower())

    def return_statement(self) -> Return:
        if not self.in_function:
            raise SqlError(ErrorCode.ER_SP_BADRETURN)
        line = self.text.count("\n", 0, self.tokens[self.pos].start) + 1
        self.expect("RETURN")
        return Return(self.expression(), line)

    def cursor_statement(self) -> CursorStatement:
        action = CursorAction(self.word())
        self.pos += 1
        if action is CursorAction.FETCH:
            self.accept("NEXT")
            self.accept("FROM")
        name = self.name()
        if name.lower() not in self.cursors:
            raise SqlError(ErrorCode.ER_SP_CURSOR_MISMATCH, name)
        targets: list[str] = []
        if action is CursorAction.FETCH:
            self.expect("INTO")
            targets.append(self.variable(self.name()))
            while self.accept(","):
                targets.append(self.variable(self.name()))
        return CursorStatement(action, name.lower(), tuple(targets))


_STATEMENTS = {
    "DECLARE": Reader.declare,
    "SET": Reader.set_statement,
    "IF": Reader.if_statement,
    "CASE": Reader.case_statement,
    "LEAVE": Reader.jump,
    "ITERATE": Reader.jump,
    "RETURN": Reader.return_statement,
    "OPEN": Reader.cursor_statement,
    "FETCH": Reader.cursor_statement,
    "CLOSE": Reader.cursor_statement,
}
