"""`rplharness explain`: what the master decides for one statement."""

from __future__ import annotations

import argparse
import json
import sys

from server_sim.flavor import get_flavor

from .common import EXIT_USAGE, settings


def explain(arguments: argparse.Namespace) -> int:
    from master_sim.explain import ExplainError, explain
    from server_sim.errors import SqlError
    from server_sim.parser import split_statements

    try:
        variables = settings(arguments.settings)
    except ValueError as error:
        print(f"rplharness: {error}", file=sys.stderr)
        return EXIT_USAGE
    schema: list[str] = []
    if arguments.schema is not None:
        try:
            schema = split_statements(arguments.schema.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as error:
            print(f"rplharness: --schema {arguments.schema}: {error}", file=sys.stderr)
            return EXIT_USAGE
        except SqlError as error:
            print(f"rplharness: --schema {arguments.schema}: {error}", file=sys.stderr)
            return EXIT_USAGE
    try:
        explanation = explain(arguments.sql, get_flavor(arguments.flavor), schema, variables, arguments.before)
    except ExplainError as error:
        print(f"rplharness: explain: {error}", file=sys.stderr)
        return EXIT_USAGE
    if arguments.json:
        print(json.dumps(explanation.as_dict(), indent=2))
    else:
        sys.stdout.write(explanation.render())
    return 0
