"""One module per subcommand of ``camcf``; every module here is one.

A subcommand module defines::

    COMMAND = "name"            # camcf NAME …
    HELP = "one line"           # its line in `camcf --help`
    DESCRIPTION = "…"           # optional: the top of `camcf NAME --help`
    ORDER = 50                  # optional: its place in `camcf --help` (default 100)

    def add_arguments(parser, argv): ...   # the shared groups of camcf.cli.groups + its own
    def run(args) -> Outcome: ...          # the work; camcf.cli.main writes and prints

and nothing else needs to change: :func:`camcf.cli.build_parser` finds the modules of this
package. ``argv`` is the command line being parsed (e.g. to list only the chosen methods' flags
in ``--help``); ``run`` raises :class:`camcf.CamcfError` for bad input and lets every other
exception through — ``main`` turns each into one line and an exit code.
"""
