"""YAML read as YAML 1.2 core for nulls and booleans, every other plain scalar as its text.

PyYAML resolves plain scalars by YAML 1.1: ``yes``/``no``/``on``/``off`` become booleans,
``007`` the octal 7, ``1_000`` a thousand, ``2024-01-01`` a date. Values here are compared as
the text the user wrote (the rule for every format), so only what YAML 1.2's core schema makes
of a plain scalar *and* cannot be written back differently is resolved: ``null``/``~``/empty
are missing values and ``true``/``false`` (any of their 1.2 spellings) are booleans. Numbers
keep their written text (``007`` stays ``007``, ``1.50`` stays ``1.50``).
"""

from __future__ import annotations

import re
from typing import Any

import yaml  # type: ignore[import-untyped]
from mcp_common import ErrorCode, ToolError


class Yaml12Loader(yaml.SafeLoader):  # type: ignore[misc]
    """A safe loader resolving only YAML 1.2 core nulls and booleans (and ``<<`` merges)."""


Yaml12Loader.yaml_implicit_resolvers = {}
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""]
)
Yaml12Loader.add_implicit_resolver("tag:yaml.org,2002:merge", re.compile(r"^(?:<<)$"), ["<"])


def load_yaml(text: str, label: str) -> Any:
    """The document ``text`` (of the file ``label``) holds, read by :class:`Yaml12Loader`;
    invalid YAML is a tool error naming the file."""
    try:
        return yaml.load(text, Loader=Yaml12Loader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        raise ToolError(f"{label} is not valid YAML: {exc}", ErrorCode.INVALID_ARGUMENT) from exc
