"""The golden tools/list helper: canonical format, regeneration, missing and drifted goldens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kit_tools import KitTool
from mcp_common.testing import assert_golden_tools_list, canonical_tools_list, fetch_tools_list

WIRE = [
    {
        "name": "zeta_tool",
        "description": "Écrit «ça».",
        "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
        "annotations": {"readOnlyHint": True},
        "title": "not pinned",
    },
    {"name": "alpha_tool", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}},
]


def test_canonical_format() -> None:
    text = canonical_tools_list(WIRE)
    assert text.endswith("]\n")
    entries = json.loads(text)
    assert [e["name"] for e in entries] == ["alpha_tool", "zeta_tool"]
    assert all(
        list(e) == ["annotations", "description", "inputSchema", "name", "outputSchema"]
        for e in entries
    )
    assert entries[0]["annotations"] is None
    assert entries[1]["outputSchema"] is None
    assert "Écrit «ça»." in text
    assert '\n  {\n    "annotations": {\n      "readOnlyHint": true\n    },' in text
    assert text.index('"additionalProperties"') < text.index('"properties"')


def test_missing_golden_fails_with_the_regeneration_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("UPDATE_GOLDEN", raising=False)
    with pytest.raises(AssertionError, match="UPDATE_GOLDEN=1"):
        assert_golden_tools_list("demo-server", WIRE, tmp_path)


def test_update_writes_then_comparison_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UPDATE_GOLDEN", "1")
    assert_golden_tools_list("demo-server", WIRE, tmp_path / "golden")
    golden = tmp_path / "golden" / "demo-server.tools.json"
    assert golden.read_bytes() == canonical_tools_list(WIRE).encode()
    monkeypatch.delenv("UPDATE_GOLDEN")
    assert_golden_tools_list("demo-server", WIRE, tmp_path / "golden")


def test_drift_writes_the_actual_file_and_shows_a_diff(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("UPDATE_GOLDEN", raising=False)
    (tmp_path / "demo-server.tools.json").write_text(canonical_tools_list(WIRE))
    changed = [{**WIRE[0], "description": "Writes."}, WIRE[1]]
    with pytest.raises(AssertionError) as caught:
        assert_golden_tools_list("demo-server", changed, tmp_path)
    message = str(caught.value)
    assert '-    "description": "Écrit «ça».",' in message
    assert '+    "description": "Writes.",' in message
    assert (tmp_path / "demo-server.tools.actual.json").read_text() == canonical_tools_list(changed)
    assert_golden_tools_list("demo-server", WIRE, tmp_path)
    assert not (tmp_path / "demo-server.tools.actual.json").exists()


def test_an_empty_listing_is_refused(tmp_path: Path) -> None:
    with pytest.raises(AssertionError, match="0 tools, at least 1 expected"):
        assert_golden_tools_list("demo-server", [], tmp_path)


def test_the_listing_comes_from_the_wire() -> None:
    listing = fetch_tools_list([KitTool()])
    assert listing[0]["inputSchema"]["required"] == ["text"]
    assert listing[0]["annotations"] == {
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    entry = json.loads(canonical_tools_list(listing))[0]
    assert entry["outputSchema"]["required"] == ["count"]
