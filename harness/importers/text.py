"""Reading captured files as text, and the lexical rules of MySQL's SQL an importer needs:
where a statement ends (quotes, comments, the client's DELIMITER), whether a statement
was cut inside a string, and executable comments (`/*!40101 ... */`) unwrapped as the
server executes them."""

from __future__ import annotations

import re
from pathlib import Path

from harness.importers.model import ImportFailure
from server_sim.executable_comments import executable_marker
from server_sim.flavor import FLAVORS

# Bytes that never occur in a text log or test file.
_BINARY = re.compile(rb"[\x00-\x08\x0e-\x1a\x1c-\x1f]")
_DELIMITER_LINE = re.compile(r"^\s*delimiter\s+(\S+)\s*$", re.IGNORECASE)


def read_text(path: Path) -> str:
    """The file as text: UTF-8 (latin-1 bytes are taken as they are, as the server wrote
    them), refused when it holds bytes no text file has."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ImportFailure(f"{path}: cannot read: {error.strerror or error}") from None
    binary = _BINARY.search(data)
    if binary is not None:
        line = data.count(b"\n", 0, binary.start()) + 1
        raise ImportFailure(f"{path}:{line}: binary data (byte 0x{data[binary.start()]:02x}), not a text log or test file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def open_quote(sql: str) -> str | None:
    """The quote character or comment a statement ends inside of, None when it is closed:
    a statement cut there was truncated."""
    return _scan(sql, None)[2]


def split_sql(text: str, first_line: int = 1) -> list[tuple[str, int]]:
    """The statements of a script, each with the line it starts on, split at `;` outside
    quotes and comments, honouring `DELIMITER` lines as the mysql client does. A last
    statement without its delimiter is returned too (the caller checks `open_quote`)."""
    statements: list[tuple[str, int]] = []
    delimiter = ";"
    position = 0
    line = first_line
    while position < len(text):
        rest = text[position:]
        leading = len(rest) - len(rest.lstrip())
        line += rest[:leading].count("\n")
        position += leading
        if position >= len(text):
            break
        end_of_line = text.find("\n", position)
        end_of_line = len(text) if end_of_line < 0 else end_of_line
        command = _DELIMITER_LINE.match(text[position:end_of_line])
        if command:
            delimiter = command.group(1)
            position = end_of_line
            continue
        length = _statement_length(text[position:], delimiter)
        sql = text[position : position + length]
        statement = sql[: -len(delimiter)] if sql.endswith(delimiter) else sql
        body, skipped_lines = strip_leading_comments(statement)
        if body:
            statements.append((body, line + skipped_lines))
        line += sql.count("\n")
        position += length
    return statements


def strip_leading_comments(sql: str) -> tuple[str, int]:
    """`sql` without the comments and blank lines before its first word (executable
    comments are kept: they are SQL), and how many lines those took."""
    text = sql.lstrip()
    while True:
        opener = _opener(text, 0) if text else None
        if opener not in ("/*", "#", "--"):
            break
        end = text.find(_closing(opener), len(opener))
        text = "" if end < 0 else text[end + len(_closing(opener)) :].lstrip()
    removed = sql[: len(sql) - len(text)] if text else sql
    return text.rstrip(), removed.count("\n")


def delimiter_end(text: str, delimiter: str) -> int | None:
    """Where the first `delimiter` outside quotes and comments ends in `text`, None when
    `text` holds none yet."""
    end, found, _ = _scan(text, delimiter)
    return end if found else None


def _statement_length(text: str, delimiter: str) -> int:
    """Characters up to and including the first `delimiter` outside quotes and comments."""
    return _scan(text, delimiter)[0]


def _scan(text: str, delimiter: str | None) -> tuple[int, bool, str | None]:
    """How far `text` goes up to and including `delimiter` outside quotes and comments
    (all of it when there is none), whether the delimiter was found, and the quote or
    block comment still open at the end."""
    index = 0
    closing: str | None = None
    while index < len(text):
        if closing is not None:
            if text[index] == "\\" and closing in "'\"":
                index += 2
            elif text.startswith(closing, index):
                doubled = closing in "'\"`" and text.startswith(closing * 2, index)
                index += 2 if doubled else len(closing)
                closing = closing if doubled else None
            else:
                index += 1
            continue
        if delimiter is not None and text.startswith(delimiter, index):
            return index + len(delimiter), True, None
        opener = _opener(text, index)
        if opener is not None:
            closing = _closing(opener)
            index += len(opener)
            continue
        index += 1
    return len(text), False, None if closing in (None, "\n") else closing


def _opener(text: str, index: int) -> str | None:
    char = text[index]
    if char in "'\"`":
        return char
    if text.startswith("/*", index) and not text.startswith("/*!", index) and not text.startswith("/*M!", index):
        return "/*"
    if char == "#" or (text.startswith("--", index) and (index + 2 == len(text) or text[index + 2] in " \t\n")):
        return char if char == "#" else "--"
    return None


def _closing(opener: str) -> str:
    return {"/*": "*/", "#": "\n", "--": "\n"}.get(opener, opener)


def unwrap_versioned_comments(sql: str, flavor: str) -> str:
    """`sql` with each executable comment replaced by its content when the server runs it
    (`/*!40101 SET NAMES utf8 */` is `SET NAMES utf8` on both servers, `/*!80016 ...*/`
    nothing on MariaDB, which skips MySQL 5.7's versions), as the server's lexer does
    (server_sim/executable_comments.py); quoted text is left alone."""
    rules = FLAVORS[flavor].comment_rules
    out: list[str] = []
    index = 0
    while index < len(sql):
        marker = executable_marker(sql, index, rules) if sql.startswith("/*", index) else None
        if marker is None and sql.startswith("/*M!", index):  # MariaDB's, a comment to MySQL: dropped
            index = _comment_end(sql, index) + 2
            continue
        if marker is None:
            opener = _opener(sql, index) if sql[index] in "'\"`" else None
            if opener is not None:
                end = index + 1 + _statement_length(sql[index + 1 :], opener)
                out.append(sql[index:end])
                index = end
                continue
            out.append(sql[index])
            index += 1
            continue
        start = marker.end + 1 if sql[marker.end : marker.end + 1].isspace() else marker.end
        close = _comment_end(sql, start)
        if marker.runs:
            out.append(unwrap_versioned_comments(sql[start:close], flavor))
        index = close + 2
    return "".join(out)


def _comment_end(sql: str, start: int) -> int:
    """Where the `*/` closing an executable comment starts (its end when unclosed)."""
    close = sql.find("*/", start)
    return len(sql) if close < 0 else close
