"""How `readi` ends: an exit code that tells what happened, and for an error one line naming
what to fix (the file, URL, variable or flag); the traceback only with `--debug` or
`READI_DEBUG=1`.

The codes are in `readi --help` (`EPILOG`) and docs/troubleshooting.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from typing import NoReturn

from readi_graph.core.base import EndpointError, QueryRejected, ReadiError

ANSWERED = 0  # the run answered from the environment (or the command did its work)
NO_EVIDENCE = 1  # the run ended, but found no evidence to answer from
BAD_INPUT = 2  # an argument, a file, a question or an entity that cannot be used
UNAVAILABLE = 3  # a model or endpoint that is not configured, not installed or not reachable
INTERNAL = 4  # a bug: please report it with the --debug output
INTERRUPTED = 130  # Ctrl-C

EPILOG = """exit codes:
  0  answered from the knowledge graph or table (other commands: done)
  1  ran, but found no evidence to answer from (no topic entity, no path, no rows)
  2  bad input: an argument, file, directory, question or --entity that cannot be used
  3  a model or SPARQL endpoint that is not configured or cannot be reached
  4  an internal error (a bug): rerun with --debug and report the traceback

An error is one line on stderr naming what to fix; --debug (or READI_DEBUG=1) adds the
traceback. The model: --model NAME, else READI_MODEL; a name is served by OPENAI_BASE_URL
or OPENAI_API_KEY ('local': the bundled model); with no name at all, gpt-4o-mini where one
of those is set, else the bundled model (said on stderr). See docs/troubleshooting.md."""


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors: no usage block, the flag and the fix on one line."""

    def error(self, message: str) -> NoReturn:
        self.exit(BAD_INPUT, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def debugging(args: argparse.Namespace | None = None) -> bool:
    flag = bool(getattr(args, "debug", False))
    return flag or os.environ.get("READI_DEBUG", "").strip() not in ("", "0", "false", "no")


def exit_code(exc: BaseException) -> int:
    """The code an exception ends `readi` with (see `EPILOG`)."""
    from readi_graph.core.local.weights import LocalModelUnavailable
    from readi_graph.core.models.choice import ModelNotConfigured, ModelRefused, ModelUnavailable

    unavailable = (
        EndpointError,
        ModelNotConfigured,
        ModelUnavailable,
        ModelRefused,
        LocalModelUnavailable,
    )
    if isinstance(exc, unavailable):
        return UNAVAILABLE
    if isinstance(exc, ReadiError | OSError | UnicodeDecodeError):
        return BAD_INPUT
    return INTERNAL


def sentence(exc: BaseException) -> str:
    """The error as one line: ours as written, a file error with its file, anything else
    with its type (a bug)."""
    if isinstance(exc, OSError) and exc.filename is not None:
        text = f"{exc.filename}: {exc.strerror or exc}"
    elif isinstance(exc, EndpointError):
        what = str(exc).removesuffix(f" (endpoint {exc.endpoint})")
        done = "refused a query" if isinstance(exc, QueryRejected) else "could not be reached"
        text = f"the SPARQL endpoint {exc.endpoint} {done}: {what}"
    elif isinstance(exc, ReadiError):
        text = str(exc)
    elif isinstance(exc, UnicodeDecodeError):
        text = f"not UTF-8 text ({exc.reason} at byte {exc.start})"
    else:
        text = f"internal error, {type(exc).__name__}: {exc} (rerun with --debug and report it)"
    line = " ".join(text.split())
    return line if len(line) <= 500 else line[:497] + "..."


def fail(exc: BaseException, args: argparse.Namespace | None = None) -> int:
    """Print `exc` as one line (and its traceback when debugging); its exit code."""
    if debugging(args):
        traceback.print_exception(exc, file=sys.stderr)
    print(f"readi: error: {sentence(exc)}", file=sys.stderr, flush=True)
    return exit_code(exc)
