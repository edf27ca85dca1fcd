"""The ``camcf`` command line: ``select``, ``info``, ``evaluate``, ``compare`` (one module each
in :mod:`camcf.cli.commands`; a new module there is a new subcommand).

Every subcommand builds its options from the shared groups of :mod:`camcf.cli.groups` (data,
labels, discretisation, method parameters, parallelism, output, progress) and returns an
:class:`~camcf.cli.outcome.Outcome`; :func:`main` writes its files atomically
(:mod:`camcf.output`) and prints its summary. Method flags are generated from the parameter
declarations (:mod:`camcf.cli.flags`).

Every failure ends with one line on stderr and a documented exit code, never a traceback:

* 0 — success;
* 2 — bad input: bad arguments, a file that is not a readable data set, labels that do not fit,
  parameters out of range (:class:`camcf.CamcfError`);
* 3 — environment failure: a file that cannot be read or written (permissions, missing folder),
  an optional dependency not installed (pgmpy for the networks), not enough memory (:class:`camcf.ResourceLimitError`, ``MemoryError``), the disk is full;
* 4 — an internal error (a bug in camcf; set ``CAMCF_DEBUG=1`` to see the traceback);
* 130 — interrupted (Ctrl-C).

Outputs are written atomically (:mod:`camcf.output`): a failed or killed run leaves an existing
output file as it was.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence
from types import ModuleType

from ..errors import CamcfError, FileAccessError, MissingDependencyError, ResourceLimitError
from .outcome import Outcome

__all__ = ["EPILOG", "EXIT_ENVIRONMENT", "EXIT_INPUT", "EXIT_INTERNAL", "EXIT_INTERRUPTED",
           "EXIT_OK", "Outcome", "build_parser", "error_exit", "main", "subcommands"]

#: exit codes (documented in the module docstring, ``camcf --help`` and the README)
EXIT_OK, EXIT_INPUT, EXIT_ENVIRONMENT, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 2, 3, 4, 130
EPILOG = ("exit codes: 0 success; 2 bad input (arguments, data file, labels, parameters); "
          "3 environment failure (file unreadable or unwritable, out of memory, disk full); "
          "4 internal error (set CAMCF_DEBUG=1 for the traceback); 130 interrupted. "
          "Outputs are written atomically: a failed run leaves an existing output untouched.")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2 (argparse prints usage first otherwise)
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(EXIT_INPUT)


def subcommands() -> list[ModuleType]:
    """The subcommand modules (every module of :mod:`camcf.cli.commands`), in help order.
    A module that fails to import raises: a broken subcommand is never silently dropped."""
    import camcf.cli.commands as package

    found = []
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        if hasattr(module, "COMMAND"):
            found.append(module)
    return sorted(found, key=lambda m: (getattr(m, "ORDER", 100), m.COMMAND))


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole parser. ``argv`` (the command line about to be parsed) lets a subcommand's
    ``--help`` focus on what was chosen (e.g. ``--method mi-mcf`` lists MI-MCF's flags)."""
    p = _Parser(prog="camcf", description="Ca-MCF: category-level multi-label causal feature "
                                          "selection, with every decision recorded.",
                epilog=EPILOG)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    tokens = list(argv) if argv is not None else []
    # a command line names one subcommand (its first word): only that one's arguments are
    # declared (some import what they list, e.g. camcf truth's methods); without argv, all
    chosen = next((t for t in tokens if not t.startswith("-")), None)
    for module in subcommands():
        cp = sub.add_parser(module.COMMAND, help=module.HELP,
                            description=getattr(module, "DESCRIPTION", module.HELP),
                            epilog=EPILOG)
        if argv is None or module.COMMAND == chosen:
            module.add_arguments(cp, tokens)
        cp.set_defaults(run=module.run)
    return p


def error_exit(exc: BaseException, prog: str = "camcf") -> int:
    """Print one line for ``exc`` on stderr and return its exit code (see the module docstring).

    Environment failures (3): :class:`FileAccessError`, :class:`ResourceLimitError`,
    :class:`MissingDependencyError` (an optional extra not installed), ``MemoryError``, ``OSError`` (permissions, missing files, disk full). Bad input (2): any other
    :class:`CamcfError`. Anything else is a bug (4).
    """
    if isinstance(exc, KeyboardInterrupt):
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    if isinstance(exc, FileAccessError | ResourceLimitError | MissingDependencyError):
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return EXIT_ENVIRONMENT
    if isinstance(exc, CamcfError):
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    if isinstance(exc, MemoryError):
        print(f"{prog}: error: out of memory ({exc or 'an allocation failed'}); use a smaller "
              f"data set or a machine with more memory", file=sys.stderr)
        return EXIT_ENVIRONMENT
    if isinstance(exc, OSError):
        where = f" {exc.filename}" if getattr(exc, "filename", None) else ""
        if exc.errno == errno.ENOSPC:
            why = "the disk is full; free some space"
        elif isinstance(exc, PermissionError):
            why = "permission denied; check the file's permissions"
        else:
            why = (exc.strerror or str(exc) or type(exc).__name__) + "; check the path"
        print(f"{prog}: error: cannot access{where}: {why}", file=sys.stderr)
        return EXIT_ENVIRONMENT
    line = str(exc).splitlines()[0] if str(exc) else ""
    print(f"{prog}: internal error: {type(exc).__name__}: {line} (a bug in camcf; set "
          f"CAMCF_DEBUG=1 to see the traceback)", file=sys.stderr)
    return EXIT_INTERNAL


def _deliver(outcome: Outcome, quiet: bool) -> None:
    from ..output import write_json, write_text

    for path, text in outcome.files.items():
        write_text(path, text)
    if outcome.path is not None:
        if outcome.text is not None:
            write_text(outcome.path, outcome.text)
        elif outcome.payload is not None:
            write_json(outcome.path, outcome.payload)  # strict JSON (NaN → null), atomic
    if outcome.summary and not quiet:
        print(outcome.summary)
    for w in outcome.warnings:
        print(f"warning: {w}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; every failure is one line on stderr and an exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    prog = "camcf"
    try:  # argparse's SystemExit (--help: 0; a bad argument: 2, one line printed) goes through
        args = build_parser(argv).parse_args(argv)
        prog = f"camcf {args.command}"
        from .groups import check_outputs

        check_outputs(args)  # a missing output folder fails now, not after the whole run
        _deliver(args.run(args), bool(getattr(args, "quiet", False)))
        return EXIT_OK
    except BrokenPipeError:  # e.g. piped into head
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        except OSError:
            pass
        return EXIT_OK
    except (Exception, KeyboardInterrupt) as e:  # noqa: BLE001 - one line, never a traceback
        if os.environ.get("CAMCF_DEBUG") and not isinstance(e, CamcfError | KeyboardInterrupt):
            raise
        return error_exit(e, prog)
