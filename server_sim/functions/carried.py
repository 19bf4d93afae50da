"""A server error raised inside a Python function DuckDB calls, carried back through the
text of DuckDB's exception (which keeps nothing else): a stored function's value that does
not fit its type, an integer result out of BIGINT's range. `carried_error_in` reads it
back where the executor translates DuckDB's failures."""

from __future__ import annotations

from ..errors import ErrorCode, SqlError

# The marker around a carried error's fields in the text DuckDB gives its UDF's exception.
_ERROR_MARKER = "rpl-carried-error: "
SEPARATOR = "\x1f"  # between the fields of a carried error (and of a slot's spec): in no name


class RoutineError(SqlError):
    """An error a stored function's body raised: the statement's error, and the routine and
    line it came from (for MariaDB's Note 4094)."""

    def __init__(self, error: SqlError, routine: str, line: int) -> None:
        super().__init__(error.error, message=error.message)
        self.routine = routine
        self.line = line


class _Carried(ValueError):
    def __init__(self, error: SqlError) -> None:
        routine, line = (error.routine, error.line) if isinstance(error, RoutineError) else ("", 0)
        fields = (error.error.error_name, routine, str(line), error.message)
        super().__init__(_ERROR_MARKER + SEPARATOR.join(fields) + _ERROR_MARKER)


def carried(error: SqlError) -> ValueError:
    """The exception a DuckDB implementation raises for `error`: carried_error_in reads it back."""
    return _Carried(error)


def carried_error_in(text: str) -> SqlError | None:
    """The error an implementation raised, from the text of DuckDB's error (None: none was)."""
    if _ERROR_MARKER not in text:
        return None
    name, routine, line, message = text.split(_ERROR_MARKER)[1].split(SEPARATOR, 3)
    error = SqlError(ErrorCode[name], message=message)
    return RoutineError(error, routine, int(line)) if routine else error
