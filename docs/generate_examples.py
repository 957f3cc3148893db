"""Regenerate the reference parts of the user guides docs/<server>.md from the real servers.

    uv run --locked python docs/generate_examples.py            # rewrite the guides
    uv run --locked python docs/generate_examples.py --check    # exit 1 if one is stale

Between the ``<!-- BEGIN GENERATED: ... -->`` and ``<!-- END GENERATED: ... -->`` markers of
each guide it writes every tool (parameters from the live input schema, deprecated aliases,
an example call and the answer the tool really gives on the sample data in examples/) and
every command-line flag with its environment variable. The prose around the markers is
written by hand. tests/test_user_guides.py checks the guides against the registries, and runs
``--check``: the same sample data gives the same answers on any machine, so a guide that differs
from what its server answers today is stale.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from adopt_server.server import APP as ADOPT_APP
from context_server.server import APP as CONTEXT_APP
from mcp_common import McpTool, ToolDefinition
from mcp_common.adapter import ServerApp, parse_arguments
from mcp_common.adapter.cli import options
from mcp_common.testing import in_process_client, result_text
from uniqueness_server.server import APP as UNIQUENESS_APP

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
EXAMPLES = ROOT / "examples"
FAKE_BIN = ROOT / "packages" / "adopt-server" / "tests" / "fakes" / "bin"
sys.path.insert(0, str(EXAMPLES))  # the demo's sample repositories: one recipe for both
MAX_ANSWER_LINES = 30
REGENERATE = "regenerate with: uv run --locked python docs/generate_examples.py"
_DEFAULT_VALUE_IN_TEXT = (
    re.compile(r"\(default ([^;,)]+)"),
    re.compile(r"(?:^|[:;,] )(\w+) \(default[;,)]"),
)
_DEFAULT_PROSE_IN_TEXT = re.compile(r"\(default: ([^;,)]+)")


@dataclass(frozen=True)
class Example:
    """One documented call: the tool, its arguments and a note on what it shows."""

    tool: str
    arguments: dict[str, Any]
    note: str = ""
    placeholders: Mapping[str, str] = field(default_factory=dict)
    """Scratch paths in ``arguments`` and how the guide shows them."""


@dataclass(frozen=True)
class Guide:
    """How to run one server on the sample data for its guide."""

    app: ServerApp
    examples: tuple[Example, ...]


def schema_type(spec: Mapping[str, Any]) -> str:
    """A parameter's JSON type as a reader says it (``array of string``, ``string | array``)."""
    if "anyOf" in spec:
        return " or ".join(schema_type(option) for option in spec["anyOf"])
    kind = str(spec.get("type", "any"))
    if kind == "array":
        return f"array of {schema_type(spec.get('items', {}))}"
    return kind


def schema_default(spec: Mapping[str, Any], required: bool) -> str:
    """The declared default, else the one the description states, else a dash."""
    if required:
        return "required"
    if "default" in spec:
        value = spec["default"]
        return f"`{value if isinstance(value, str) else json.dumps(value)}`"
    description = str(spec.get("description", ""))
    for pattern in _DEFAULT_VALUE_IN_TEXT:
        found = pattern.search(description)
        if found:
            return f"`{found.group(1).strip()}`"
    prose = _DEFAULT_PROSE_IN_TEXT.search(description)
    return prose.group(1).strip() if prose else "—"


def cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def constraints(spec: Mapping[str, Any]) -> str:
    parts = []
    if "enum" in spec:
        parts.append("one of " + ", ".join(f"`{value}`" for value in spec["enum"]))
    low, high = spec.get("minimum"), spec.get("maximum")
    if low is not None and high is not None:
        parts.append(f"{low}..{high}")
    elif low is not None:
        parts.append(f"≥ {low}")
    elif high is not None:
        parts.append(f"≤ {high}")
    return f" ({'; '.join(parts)})" if parts else ""


def compact_json(value: object, indent: str = "") -> str:
    """Indented JSON with lists of plain values kept on one line, as people write calls."""
    if isinstance(value, dict) and value:
        inner = indent + "  "
        items = [
            f"{inner}{json.dumps(key)}: {compact_json(item, inner)}" for key, item in value.items()
        ]
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    return json.dumps(value, ensure_ascii=False)


def hints(definition: ToolDefinition) -> str:
    notes = definition.annotations
    return ", ".join(
        [
            "read-only" if notes.read_only else "writes",
            "destructive" if notes.destructive else "not destructive",
            "idempotent" if notes.idempotent else "not idempotent",
            "reaches outside the server (open world)" if notes.open_world else "closed world",
        ]
    )


def answer_block(text: str) -> str:
    lines = text.rstrip().splitlines()
    if len(lines) > MAX_ANSWER_LINES:
        cut = len(lines) - MAX_ANSWER_LINES
        lines = [*lines[:MAX_ANSWER_LINES], f"… ({cut} more lines in the real answer)"]
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(4, longest + 1)  # longer than any fence inside the answer
    return f"{fence}markdown\n" + "\n".join(lines) + f"\n{fence}"


def tool_section(definition: ToolDefinition, example: Example, answer: str) -> str:
    required = set(definition.required)
    rows = [
        f"| `{name}` | {schema_type(spec)} | {cell(schema_default(spec, name in required))} | "
        f"{cell(spec.get('description', ''))}{cell(constraints(spec))} |"
        for name, spec in definition.properties.items()
    ]
    title = definition.annotations.title
    parts = [
        f"### `{definition.name}`" + (f" — {title}" if title else ""),
        "",
        definition.description,
        "",
        f"Hints: {hints(definition)}.",
        "",
        "| Parameter | Type | Default | Description |",
        "| --- | --- | --- | --- |",
        *rows,
        "",
    ]
    if definition.deprecated_aliases:
        parts += [
            "Deprecated aliases (the Java server's names, still accepted; a warning is logged):",
            "",
            "| Alias | Use instead |",
            "| --- | --- |",
            *(f"| `{old}` | `{new}` |" for old, new in definition.deprecated_aliases.items()),
            "",
        ]
    else:
        parts += ["Deprecated aliases: none.", ""]
    if definition.output_schema is not None:
        fields = ", ".join(f"`{name}`" for name in definition.output_schema.get("properties", {}))
        parts += [f"Structured result (`outputSchema`, alongside the Markdown): {fields}.", ""]
    call = compact_json({"name": definition.name, "arguments": example.arguments})
    for real, placeholder in example.placeholders.items():
        call = call.replace(real, placeholder)
    parts += [
        "Example call" + (f" ({example.note})" if example.note else "") + ":",
        "",
        f"```json\n{call}\n```",
        "",
        "Answer:",
        "",
        answer_block(answer),
        "",
    ]
    return "\n".join(parts)


def flags_section(app: ServerApp[Any]) -> str:
    rows = []
    for option in options(app):
        flags = f"`{option.flag}`" + (f" `{option.metavar}`" if option.metavar else "")
        shown = "—" if option.default in (None, [], False) else f"`{option.default}`"
        # as --help says it: a help text is the same on every machine (mcp_common.command_line
        # commits it), so the guide is too
        meaning = option.help
        repeatable = " Repeatable." if option.repeatable and "repeatable" not in meaning else ""
        rows.append(f"| {flags} | `{option.variable}` | {shown} | {cell(meaning)}.{repeatable} |")
    rows.append("| `--version` | — | — | print the version. |")
    return "\n".join(
        [
            "| Flag | Environment variable | Default | Meaning |",
            "| --- | --- | --- | --- |",
            *rows,
            "",
            "A flag on the command line wins over its environment variable. A repeatable flag "
            "given through its variable takes several values separated by `|`; a switch takes "
            "`true`/`false`.",
        ]
    )


async def answers(
    app: ServerApp[Any], argv: Sequence[str], examples: Sequence[Example]
) -> list[str]:
    texts = []
    async with in_process_client(app, argv, environ={}) as client:
        for example in examples:
            result = await client.call_tool(example.tool, example.arguments)
            if result.is_error:
                raise RuntimeError(f"{example.tool} failed: {result_text(result)}")
            texts.append(result_text(result))
    return texts


def tools_of(app: ServerApp[Any], argv: Sequence[str]) -> list[McpTool]:
    return list(app.build_tools(parse_arguments(app, argv, environ={})))


def reference(app: ServerApp[Any], argv: Sequence[str], examples: Sequence[Example]) -> str:
    by_tool = {example.tool: example for example in examples}
    tools = tools_of(app, argv)
    missing = {tool.definition.name for tool in tools} - set(by_tool)
    if missing:
        raise SystemExit(f"no example for {', '.join(sorted(missing))}: add one to this script")
    ordered = [by_tool[tool.definition.name] for tool in tools]
    texts = anyio.run(answers, app, argv, ordered)
    return "\n".join(
        tool_section(tool.definition, example, text)
        for tool, example, text in zip(tools, ordered, texts, strict=True)
    ).rstrip()


def replace_region(text: str, region: str, content: str) -> str:
    begin, end = f"<!-- BEGIN GENERATED: {region} -->", f"<!-- END GENERATED: {region} -->"
    if begin not in text or end not in text:
        raise SystemExit(f"the guide lacks the markers of the '{region}' region")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{begin}\n{content}\n{end}{tail}"


def write_guide(
    app: ServerApp[Any], argv: Sequence[str], examples: Sequence[Example], *, check: bool
) -> bool:
    """Regenerate ``docs/<server>.md``; with ``check``, only say whether it is current."""
    path = DOCS / f"{app.name}.md"
    committed = path.read_text(encoding="utf-8")
    text = replace_region(committed, "tools", reference(app, argv, examples))
    text = replace_region(text, "flags", flags_section(app))
    shown = path.relative_to(ROOT)
    if check:
        if text != committed:
            print(f"{shown} is stale: {REGENERATE}", file=sys.stderr)
        return text == committed
    path.write_text(text, encoding="utf-8")
    print(f"wrote {shown}", file=sys.stderr)
    return True


@contextmanager
def stand_in_environment(home: Path) -> Iterator[None]:
    """adopt_repo runs `claude` (the test suite's stand-in here), records trust in
    ``$HOME/.claude.json`` (a scratch home, so the user's own file is never touched) and
    commits (with the demo's fixed identity)."""
    from demo import GIT_ENV  # type: ignore[import-not-found]

    changes = {"PATH": f"{FAKE_BIN}{os.pathsep}{os.environ['PATH']}", "HOME": str(home), **GIT_ENV}
    saved = {name: os.environ.get(name) for name in changes}
    os.environ.update(changes)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def adopt_examples(root: Path) -> list[Example]:
    from demo import adopted_files, bare_repository

    remotes = root / "remotes"
    remotes.mkdir()
    adopted = bare_repository(remotes, "orders-service", adopted_files())
    plain = bare_repository(remotes, "legacy-service", {"README.md": "# legacy-service\n"})
    shown = {root.as_uri(): "file:///srv/adopt"}
    return [
        Example(
            "adopt_repo",
            {"repositoryUrl": plain.as_uri(), "workspace": "dry-run", "dryRun": True},
            "a dry run on a local repository under `--workspace-root /srv/adopt`; `claude` "
            "here is the test suite's stand-in",
            shown,
        ),
        Example(
            "verify_adoption",
            {"repositoryUrl": adopted.as_uri(), "workspace": "verify"},
            "a local repository adopted earlier",
            shown,
        ),
        Example(
            "adoption_status",
            {"repositoryUrls": [adopted.as_uri()]},
            "a local repository: git reads its branches; pull requests need a GitHub owner/name",
            shown,
        ),
    ]


def main(argv: Sequence[str]) -> int:
    """Write the guides; ``--check`` writes nothing and exits 1 if one differs."""
    check = list(argv) == ["--check"]
    if argv and not check:
        raise SystemExit(f"usage: {Path(__file__).name} [--check]")
    data, project = EXAMPLES / "data", EXAMPLES / "shop-project"
    current = write_guide(
        UNIQUENESS_APP,
        ["--allowed-dir", str(data)],
        [
            Example(
                "uniqueness_check",
                {"path": "orders.csv", "columns": ["order_number"], "limit": 3},
                "examples/data/orders.csv",
            ),
            Example(
                "find_keys",
                {"path": "orders.csv", "maxColumns": 2, "plausibleOnly": True, "limit": 3},
            ),
            Example("list_columns", {"path": "orders.csv"}),
        ],
        check=check,
    )
    current &= write_guide(
        CONTEXT_APP,
        ["--allowed-dir", str(project)],
        [
            Example("project_tree", {"path": "."}, "examples/shop-project"),
            Example("find_context", {"path": ".", "className": "OrderService", "depth": 2}),
            Example("estimate_tokens", {"path": ".", "className": "PriceCalculator"}),
            Example("okf_bundle", {"path": ".", "limit": 2}),
            Example("repo_map", {"path": ".", "tokenBudget": 200, "focus": ["OrderService"]}),
            Example("find_usages", {"path": ".", "className": "Money"}),
        ],
        check=check,
    )
    with tempfile.TemporaryDirectory(prefix="adopt-guide-") as scratch:
        root, home = Path(scratch) / "workspaces", Path(scratch) / "home"
        root.mkdir()
        home.mkdir()
        with stand_in_environment(home):
            current &= write_guide(
                ADOPT_APP, ["--workspace-root", str(root)], adopt_examples(root), check=check
            )
    return 0 if current else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
