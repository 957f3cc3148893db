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
from collections.abc import Iterator
from typing import Any

import yaml  # type: ignore[import-untyped]
from mcp_common import ErrorCode, ToolContext, ToolError

from uniqueness_server.read_limits import ReadLimits


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


_MERGE = "tag:yaml.org,2002:merge"


MERGED_ENTRY_BYTES = 16
"""What an entry copied by a ``<<`` merge counts against ``--max-document-bytes``: about what
writing it out would take, so merging cannot make a document larger than the limit lets one
be written (PyYAML holds every copy)."""


def load_yaml(text: str, label: str, limits: ReadLimits, context: ToolContext) -> Any:
    """The document ``text`` (of the file ``label``) holds, read by :class:`Yaml12Loader`;
    invalid YAML is a tool error naming the file.

    Aliases are built once and shared (their leaves are counted later), but a ``<<`` merge
    copies every entry it merges: before anything is built, the copies are counted on the
    parsed nodes, each as :data:`MERGED_ENTRY_BYTES` more bytes of the document, so a small
    document merging a wide mapping into each of many records is refused, not built."""
    loader = Yaml12Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        room = (limits.max_document_bytes - len(text.encode())) // MERGED_ENTRY_BYTES
        if _merge_copies(node, room, context) > room:
            raise limits.document_too_large(label, "once its << merges are copied")
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise ToolError(f"{label} is not valid YAML: {exc}", ErrorCode.INVALID_ARGUMENT) from exc
    finally:
        loader.dispose()


def _merged(node: yaml.MappingNode) -> Iterator[yaml.Node]:
    """The mappings ``node`` merges (``<<: *a`` or ``<<: [*a, *b]``)."""
    for key, value in node.value:
        if key.tag == _MERGE:
            yield from value.value if isinstance(value, yaml.SequenceNode) else [value]


def _merge_copies(root: yaml.Node, stop_past: int, context: ToolContext) -> int:
    """How many entries constructing ``root`` copies through ``<<`` merges (a merged mapping
    brings what it merges itself), counted until past ``stop_past``."""
    flat: dict[int, int] = {}

    def entries(node: yaml.Node) -> int:
        if not isinstance(node, yaml.MappingNode):
            return 0
        known = flat.get(id(node))
        if known is None:
            flat[id(node)] = 0  # a mapping merging itself adds nothing more
            own = sum(1 for key, _ in node.value if key.tag != _MERGE)
            known = own + sum(entries(merged) for merged in _merged(node))
            flat[id(node)] = known
        return known

    copies = 0
    seen: set[int] = set()
    waiting = [root]
    while waiting and copies <= stop_past:
        node = waiting.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if len(seen) % 65_536 == 0:
            context.check_cancelled()
        if isinstance(node, yaml.MappingNode):
            copies += sum(entries(merged) for merged in _merged(node))
            for key, value in node.value:
                waiting += (key, value)
        elif isinstance(node, yaml.SequenceNode):
            waiting += node.value
    return copies
