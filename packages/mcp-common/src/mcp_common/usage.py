"""The one command-line parser of every command here: usage errors are one masked line, and
command-line flags derived from a tool's argument model."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from mcp_common.masking import mask_credentials

if TYPE_CHECKING:
    from mcp_common.arguments import Arguments


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


def argument_flags(
    parser: argparse.ArgumentParser,
    models: Sequence[type[Arguments]],
    *,
    skip: Collection[str] = (),
    help_prefixes: Mapping[type[Arguments], str] | None = None,
) -> dict[str, str]:
    """One command-line flag per tool argument of ``models`` (but ``skip``, by wire name):
    ``headerRow`` becomes ``--header-row VALUE``, a boolean defaulting to false ``--verify``
    and one defaulting to true ``--no-better-options``; the help is the argument's description.

    Values are kept as the text typed (booleans as ``True``/``False``): read them with
    :func:`given_arguments` and :func:`~mcp_common.arguments.parse_arguments` on the tool's own
    model, so a command accepts exactly the values the tool accepts, with the same messages
    (:func:`flag_message` names the flag in them). A flag several models share gets each one's
    description, after its ``help_prefixes`` entry. Returns flag -> wire name.
    """
    # here, not at the top: UsageParser alone must not load pydantic (see mcp_common.command_line)
    from mcp_common.arguments import OneOf

    described: dict[str, list[tuple[type[Arguments], Any]]] = {}
    for model in models:
        for name, info in model.model_fields.items():
            wire = info.alias or name
            if wire not in skip:
                described.setdefault(wire, []).append((model, info))
    flags: dict[str, str] = {}
    for wire, fields in described.items():
        described_once = len({info.description for _, info in fields}) == 1
        helps = [
            ("" if described_once else (help_prefixes or {}).get(model, ""))
            + (info.description or "").rstrip(".")
            for model, info in fields
        ]
        text = "; ".join(dict.fromkeys(helps)).replace("%", "%%")
        dashed = re.sub(r"(?<!^)(?=[A-Z])", "-", wire).lower()
        info = fields[0][1]
        if info.annotation is bool:
            switched_on = info.default is False
            flag = f"--{dashed}" if switched_on else f"--no-{dashed}"
            parser.add_argument(
                flag,
                dest=f"argument:{wire}",
                action="store_const",
                const=switched_on,
                default=argparse.SUPPRESS,
                help=text if switched_on else f"set {wire} to false: {text}",
            )
        else:
            flag = f"--{dashed}"
            choices = next((m.choices for m in info.metadata if isinstance(m, OneOf)), None)
            parser.add_argument(
                flag,
                dest=f"argument:{wire}",
                metavar="{" + ",".join(choices) + "}" if choices else dashed.upper(),
                default=argparse.SUPPRESS,
                help=text,
            )
        flags[flag] = wire
    return flags


def given_arguments(options: argparse.Namespace) -> dict[str, Any]:
    """The tool arguments given as flags made by :func:`argument_flags`, by wire name."""
    prefix = "argument:"
    return {
        key.removeprefix(prefix): value
        for key, value in vars(options).items()
        if key.startswith(prefix)
    }


def flag_message(message: str, flags: Mapping[str, str]) -> str:
    """``message`` (a refused argument, see :func:`~mcp_common.arguments.parse_arguments`)
    naming the command-line flag instead of the tool's argument name."""
    for flag, wire in flags.items():
        message = re.sub(rf"(?<![\w-]){re.escape(wire)}(?![\w-])", flag, message)
    return message
