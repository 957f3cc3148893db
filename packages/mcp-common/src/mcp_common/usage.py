"""The one command-line parser of every command here: usage errors are one masked line."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from mcp_common.masking import mask_credentials


class UsageParser(argparse.ArgumentParser):
    """An ``argparse`` parser whose errors are usage plus one line, exit status 2.

    Credentials in the line (``prog: error: ...``) are masked: a mistyped URL's password never
    reaches the terminal or a CI log. Paths stay, since they are the user's own.
    """

    def __init__(self, **kwargs: object) -> None:
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(**kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        """Print usage and the masked message on stderr, then exit with status 2."""
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {mask_credentials(' '.join(message.split()))}\n")
