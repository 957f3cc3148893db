"""The server over the MCP protocol, in process: contract, golden tools/list, fuzz, calls."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import CORPUS, tools_for
from context_server.server import APP
from mcp_common.testing import (
    assert_golden_tools_list,
    fetch_tools_list,
    fuzz_tools,
    in_process_client,
    result_text,
    run_contract_checks,
)

REPO_ROOT = Path(__file__).resolve().parents[3]
README = Path(__file__).resolve().parents[1] / "README.md"

SAMPLES = {
    "project_tree": [
        {"path": ".", "format": "json", "depth": 2, "language": "auto", "limit": 5, "offset": 1}
    ],
    "find_context": [
        {
            "path": ".",
            "className": "OrderService",
            "depth": 2,
            "language": "java",
            "tokenBudget": 500,
            "includeSource": True,
            "tokenizer": "heuristic",
        }
    ],
    "estimate_tokens": [
        {"path": ".", "className": "Invoice", "depth": 1, "language": "auto", "tokenizer": "cl100k"}
    ],
    "okf_bundle": [{"path": ".", "depth": 1, "language": "kotlin", "limit": 3, "offset": 0}],
    "repo_map": [
        {
            "path": ".",
            "language": "auto",
            "tokenBudget": 300,
            "focus": ["OrderService"],
            "tokenizer": "cl100k",
        }
    ],
    "find_usages": [
        {"path": ".", "className": "Order", "language": "java", "limit": 2, "offset": 1}
    ],
}


def test_the_registry_meets_the_tool_contract() -> None:
    run_contract_checks(list(tools_for(CORPUS).values()), SAMPLES, min_tools=4)


def test_golden_tools_list() -> None:
    tools = fetch_tools_list(APP, ["--allowed-dir", str(CORPUS)])
    assert [t["name"] for t in tools] == [
        "project_tree",
        "find_context",
        "estimate_tokens",
        "okf_bundle",
        "repo_map",
        "find_usages",
    ]
    assert_golden_tools_list("context-server", tools, REPO_ROOT / "tests" / "golden", min_tools=4)


def test_readme_catalog_matches_the_registry() -> None:
    text = README.read_text(encoding="utf-8")
    for tool in tools_for(CORPUS).values():
        definition = tool.definition
        section = re.search(rf"### `{definition.name}`\n(.*?)(?=\n### |\Z)", text, re.S)
        assert section is not None, f"README has no section for {definition.name}"
        documented = set(re.findall(r"^\| `(\w+)` \|", section.group(1), re.M))
        assert documented == set(definition.properties) | set(definition.deprecated_aliases)


def test_fuzzed_arguments_never_break_the_protocol_or_leak_paths(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "A.java").write_text("package pkg; class A {}", encoding="utf-8")
    fuzz_tools(APP, ["--allowed-dir", str(tmp_path)], forbidden=[str(tmp_path)], max_examples=60)


@pytest.mark.anyio
async def test_calls_over_the_protocol_carry_text_and_structured_content() -> None:
    async with in_process_client(APP, ["--allowed-dir", str(CORPUS)]) as client:
        found = await client.call_tool("find_context", {"path": ".", "class_name": "Billing"})
        assert not found.is_error
        assert found.structured_content is not None
        assert [d["path"] for d in found.structured_content["dependencies"]] == [
            "kotlin/com/shop/kt/Invoices.kt"
        ]
        denied = await client.call_tool("project_tree", {"path": "/etc"})
        assert denied.is_error
        assert result_text(denied).startswith("project_tree failed: ")
        assert "outside the allowed" in result_text(denied)
