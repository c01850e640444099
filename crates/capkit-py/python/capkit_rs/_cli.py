"""The ``capkit`` console script of the wheel: the command line itself, run in this process."""

import sys

from . import _native


def main() -> None:
    """Runs ``capkit`` with this process's arguments and exits with its status."""
    # Anything Python buffered goes out before the command line writes to the same descriptors.
    sys.stdout.flush()
    sys.stderr.flush()
    raise SystemExit(_native._cli_main(["capkit", *sys.argv[1:]]))
