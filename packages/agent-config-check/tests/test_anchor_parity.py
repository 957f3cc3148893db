"""Parity with the anchor's claude-code-enforcer: the same input, the same verdict.

Each directory under ``fixtures/parity`` holds a small project and ``expected.json``: the
configuration (the anchor's keys), the rules the anchor's code reports on that input, its
verdict (read from the rule classes of adamw7/tools; Maven cannot run offline here), and our
exact violations. docs/agent-config-check.md maps every anchor rule to ours.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agent_config_check.command import run_check

ANCHOR_RULES = (
    "claudeMdFormat",
    "agentsMdFormat",
    "memoryImports",
    "contextBudget",
    "moduleMapConsistency",
    "crossDocConsistency",
    "readmeConsistency",
    "skillFilesExist",
    "subAgentFormat",
    "commandFormat",
    "pluginFormat",
    "uniqueNames",
    "uniqueDescriptions",
    "settingsJsonValid",
    "permissionsFormat",
    "hookCommandsValid",
    "hooksFormat",
    "localSettingsIgnored",
    "mcpServersValid",
    "mcpConfigFormat",
    "okfBundleFormat",
    "noSecrets",
)
"""The anchor's catalogue; the rules beyond it have fixtures of their own (fixtures/shapes)."""

FIXTURES = Path(__file__).parent / "fixtures" / "parity"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "expected.json").is_file())


def _outcome(case: str, tmp_path: Path) -> tuple[dict[str, object], list[str], set[str]]:
    expected = json.loads((FIXTURES / case / "expected.json").read_text(encoding="utf-8"))
    config = tmp_path / "config.json"
    config.write_text(json.dumps(expected["config"]), encoding="utf-8")
    # The anchor's rules are the adoption template's policy: its profile.
    outcome = run_check(FIXTURES / case / "project", profile="adoption", config_file=str(config))
    anchors = [v for v in outcome.violations if v.rule in ANCHOR_RULES]
    return expected, [v.text() for v in anchors], {v.rule for v in anchors}


def test_every_fixture_is_collected() -> None:
    assert len(CASES) >= 15


@pytest.mark.parametrize("case", CASES)
def test_same_input_same_verdict_as_the_anchor(case: str, tmp_path: Path) -> None:
    expected, violations, rules = _outcome(case, tmp_path)
    assert ("fail" if violations else "pass") == expected["anchorVerdict"]
    assert rules == set(expected["anchorRules"])  # type: ignore[arg-type]
    assert violations == expected["violations"]


def test_the_fixtures_cover_every_rule() -> None:
    covered = {
        rule
        for case in CASES
        for rule in json.loads((FIXTURES / case / "expected.json").read_text())["anchorRules"]
    }
    assert covered == set(ANCHOR_RULES)
