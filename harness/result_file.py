"""A mysqltest `.result` file read as an oracle: what the server answered to each
statement of a test when its result was recorded.

mysqltest writes each statement it runs (unless the query log is off) followed by `;`,
then what the server answered: `ERROR <sqlstate>: <message>` for an expected error, a
result set, a `Warnings:` block of `Level<TAB>Code<TAB>Message` lines, and for
`SHOW BINLOG EVENTS` (or `include/show_binlog_events.inc`) a table whose Pos and
End_log_pos columns are masked. The file does not say where a statement's text ends
and its output begins, so statements are found by their text, in order (`echo_of`),
and a statement's output runs to the next statement found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_ERROR = re.compile(r"^ERROR (\w{5}): (.*)$")
_WARNING = re.compile(r"^(Note|Warning|Error)\t(\S+)\t(.*)$")
_EVENTS_HEADER = "Log_name\tPos\tEvent_type\tServer_id\tEnd_log_pos\tInfo"
_EVENT_ROW = re.compile(r"^[^\t]+\t[^\t]*\t([^\t]+)\t[^\t]*\t[^\t]*\t(.*)$")


@dataclass(frozen=True)
class Diagnostic:
    """A warning or note as the Warnings block shows it; `code` None when masked."""

    level: str
    code: int | None
    message: str


@dataclass
class Answer:
    """What the server answered to one statement, as recorded."""

    error: tuple[str, str] | None = None  # (sqlstate, message)
    warnings: list[Diagnostic] = field(default_factory=list)
    has_warnings_block: bool = False
    event_tables: list[list[tuple[str, str]]] = field(default_factory=list)  # (Event_type, Info) rows


def _echoes(line: str) -> bool:
    """Whether a line is something mysqltest echoed (a statement, an include, a
    connection switch), not output."""
    return line.rstrip().endswith(";") or line.startswith(("include/", "[connection", "###"))


def _normal(text: str) -> str:
    return " ".join(text.split())


class ResultFile:
    """The lines of one `.result` file and where statements were found in it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        self._normal = [_normal(line) for line in self.lines]
        self.cursor = 0

    def echo_of(self, sql: str) -> tuple[int, int] | None:
        """The lines [start, end) where `sql` is echoed, searching on from the last one
        found; None when the file does not show it (query log off, or never run)."""
        target = _normal(sql) + ";"
        for start in range(self.cursor, len(self.lines)):
            text = self._normal[start]
            if not text or not target.startswith(text):
                continue
            end = start + 1
            while len(text) < len(target) and end < len(self.lines):
                text = f"{text} {self._normal[end]}".strip()
                end += 1
            if text == target:
                self.cursor = end
                return start, end
        return None

    def answer(self, start: int, end: int) -> Answer:
        """The recorded answer in lines [start, end): after a statement's echo, up to the
        next statement found. Its error and warnings come before the next line that
        echoes anything (a statement the import did not keep, an include); the SHOW
        BINLOG EVENTS tables anywhere before the next statement found are taken as
        showing what was logged by then."""
        answer = Answer()
        lines = self.lines[start:end]
        if lines and (error := _ERROR.match(lines[0])):
            answer.error = (error.group(1), error.group(2))
        own = next((number for number, line in enumerate(lines) if _echoes(line)), len(lines))
        index = 0
        while index < len(lines):
            line = lines[index]
            if line == "Warnings:" and index < own:
                answer.has_warnings_block = True
                index += 1
                while index < len(lines) and (warning := _WARNING.match(lines[index])):
                    code = warning.group(2)
                    answer.warnings.append(Diagnostic(warning.group(1), int(code) if code.isdigit() else None, warning.group(3)))
                    index += 1
                continue
            if line == _EVENTS_HEADER:
                index = self._event_table(lines, index + 1, answer)
                continue
            index += 1
        return answer

    @staticmethod
    def _event_table(lines: list[str], index: int, answer: Answer) -> int:
        rows: list[tuple[str, str]] = []
        while index < len(lines):
            row = _EVENT_ROW.match(lines[index])
            if row is None:
                break
            rows.append((row.group(1), row.group(2)))
            index += 1
        answer.event_tables.append(rows)
        return index
