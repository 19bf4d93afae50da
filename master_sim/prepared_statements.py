"""PREPARE, EXECUTE and DEALLOCATE PREPARE on the master.

PREPARE checks the text as the server does when it prepares it (its syntax, the commands
that cannot be prepared, where parameter markers may stand) and keeps it in the session;
EXECUTE gives back the statement to run: the text with each marker replaced by its value
as a literal, which is the query the server runs, analyzes for unsafe reasons and logs.
None of the three is logged itself.
"""

from __future__ import annotations

from server_sim.errors import ErrorCode, SqlError
from server_sim.execute.executor import Executor
from server_sim.parser import parse_statement
from server_sim.prepared import PreparedAction, PreparedCommand, PreparedText, check_markers, expanded_text, literal_text
from server_sim.server import Server
from server_sim.statement import Statement, StatementKind

from .sessions import MasterSession

# The commands a prepared statement may not be (ER_UNSUPPORTED_PS).
UNPREPARABLE = frozenset({StatementKind.PREPARE, StatementKind.EXECUTE, StatementKind.DEALLOCATE_PREPARE})


class PreparedStatements:
    """The prepared-statement commands of the master's sessions."""

    def __init__(self, server: Server, executor: Executor) -> None:
        self.server = server
        self.executor = executor

    def run(self, ms: MasterSession, statement: Statement) -> Statement | None:
        """Carry out a PREPARE or DEALLOCATE PREPARE (None), or give EXECUTE's statement."""
        command = statement.prepared
        assert command is not None
        store = ms.session.prepared_statements
        if command.action is PreparedAction.DEALLOCATE:
            if store.pop(command.key, None) is None:
                raise SqlError(ErrorCode.ER_UNKNOWN_STMT_HANDLER, command.name, "DEALLOCATE PREPARE")
            return None
        if command.action is PreparedAction.PREPARE:
            store.pop(command.key, None)  # a statement of that name goes first, even if this one fails
            store[command.key] = self._prepare(ms, command)
            return None
        prepared = store.get(command.key)
        if prepared is None:
            raise SqlError(ErrorCode.ER_UNKNOWN_STMT_HANDLER, command.name, "EXECUTE")
        if len(command.arguments) != prepared.markers:
            raise SqlError(ErrorCode.ER_WRONG_ARGUMENTS, "EXECUTE")
        values = self._values(ms, command)
        no_backslash_escapes = "NO_BACKSLASH_ESCAPES" in ms.session.variables.get("sql_mode", "").upper()
        return parse_statement(expanded_text(prepared.text, values, no_backslash_escapes))

    def _prepare(self, ms: MasterSession, command: PreparedCommand) -> PreparedText:
        source = command.source
        assert source is not None
        if source.is_string:
            text = source.name
        else:  # PREPARE s FROM @var: the variable's value, as text
            value = ms.session.user_variables.get(source.name.lower())
            text = value.decode() if isinstance(value, bytes) else literal_text(None) if value is None else str(value)
        inner = parse_statement(text)
        if inner.kind in UNPREPARABLE:
            raise SqlError(ErrorCode.ER_UNSUPPORTED_PS)
        return PreparedText(command.name, text, check_markers(text, inner.ast))

    def _values(self, ms: MasterSession, command: PreparedCommand) -> list[object]:
        """EXECUTE's arguments: user variables (an unset one is NULL) or other expressions."""
        variables = ms.session.user_variables
        values: list[object] = []
        for argument in command.arguments:
            if argument.key == "parameter":
                values.append(variables.get(argument.name.lower()))
            else:
                context = self.server.statement_context(ms.session, self.server.now())
                values.append(self.executor.evaluate(ms.session, context, [argument])[0])
        return values
