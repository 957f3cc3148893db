"""Violations of the agent-configuration rules, and what is done with them: severity,
baseline, and the text, JSON and SARIF reports."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

SEVERITIES = ("error", "warn")
BASELINE_HEADER = (
    "# agent-config-check baseline: violations accepted for now; they do not fail the check.\n"
    "# Delete a line to make that violation count again; a new violation is never accepted.\n"
    "# Regenerate with --write-baseline.\n"
)
_BASEDIR_MARK = "${basedir}"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL_URI = "https://github.com/adamw7/tools/tree/main/claude-code-enforcer"


@dataclass(frozen=True)
class Violation:
    """One broken rule: which rule, which file and line (1-based; 0 = the whole file)."""

    rule: str
    path: str
    line: int
    message: str
    severity: str = "error"

    @property
    def signature(self) -> str:
        """The baseline form: rule and message on one line, no line number (edits above a
        violation must not un-accept it)."""
        return " ".join(f"[{self.rule}] {self.message}".split())

    def text(self) -> str:
        """``path:line: severity [rule] message`` (``path`` alone for a whole-file finding)."""
        where = f"{self.path}:{self.line}" if self.line else self.path or "."
        return f"{where}: {self.severity} [{self.rule}] {self.message}"


def parse_severity(value: object, where: str) -> str:
    """``error`` or ``warn`` (case and blanks ignored); anything else is refused, because a
    misspelt ``warning`` read as ``error`` would look exactly like the rule working."""
    if not isinstance(value, str) or value.strip().lower() not in SEVERITIES:
        raise ValueError(f"{where} must be one of {', '.join(SEVERITIES)}, not {value!r}")
    return value.strip().lower()


class Baseline:
    """Accepted violations, one signature a line (``#`` comments and blank lines ignored).

    The project's absolute path is written as ``${basedir}`` and Windows separators as ``/``,
    so a committed baseline matches in any clone.
    """

    def __init__(self, accepted: Iterable[str], root: str) -> None:
        """Hold ``accepted`` signatures of a project at ``root``."""
        self._root = root
        self.accepted = {self.normalise(entry) for entry in accepted}

    @classmethod
    def parse(cls, text: str, root: str) -> Baseline:
        """Read a baseline file's text."""
        lines = (line.strip() for line in text.splitlines())
        return cls((line for line in lines if line and not line.startswith("#")), root)

    def normalise(self, signature: str) -> str:
        """``signature`` with the project path tokenised and on one line."""
        for root in {self._root, self._root.replace("\\", "/")}:
            if root:
                signature = signature.replace(root, _BASEDIR_MARK)
        return " ".join(signature.replace("\\", "/").split())

    def accepts(self, violation: Violation) -> bool:
        """Whether ``violation`` was recorded."""
        return self.normalise(violation.signature) in self.accepted

    def stale(self, violations: Sequence[Violation]) -> list[str]:
        """Recorded entries no current violation matches (they can be deleted)."""
        current = {self.normalise(v.signature) for v in violations}
        return sorted(self.accepted - current)

    def render(self, violations: Sequence[Violation]) -> str:
        """A fresh baseline accepting ``violations`` (sorted, de-duplicated)."""
        lines = sorted({self.normalise(v.signature) for v in violations})
        return BASELINE_HEADER + "".join(line + "\n" for line in lines)


def render_text(violations: Sequence[Violation]) -> str:
    """One line per violation."""
    return "".join(v.text() + "\n" for v in violations)


def render_json(violations: Sequence[Violation], checked: Sequence[str], suppressed: int) -> str:
    """A JSON object: the rules run, the violations, how many the baseline accepted."""
    document = {
        "rulesChecked": list(checked),
        "suppressedByBaseline": suppressed,
        "violations": [
            {
                "rule": v.rule,
                "severity": v.severity,
                "path": v.path,
                "line": v.line,
                "message": v.message,
            }
            for v in violations
        ],
    }
    return json.dumps(document, indent=2) + "\n"


def render_sarif(
    violations: Sequence[Violation],
    checked: Sequence[str],
    version: str,
    descriptions: dict[str, str],
) -> str:
    """A SARIF 2.1.0 log (GitHub code scanning shows each result on its file and line)."""
    rules = sorted({*checked, *(v.rule for v in violations)})
    results = []
    for v in violations:
        location: dict[str, object] = {
            "artifactLocation": {"uri": v.path or ".", "uriBaseId": "%SRCROOT%"}
        }
        if v.line:
            location["region"] = {"startLine": v.line}
        results.append(
            {
                "ruleId": v.rule,
                "ruleIndex": rules.index(v.rule),
                "level": "error" if v.severity == "error" else "warning",
                "message": {"text": v.message},
                "locations": [{"physicalLocation": location}],
            }
        )
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "agent-config-check",
                        "version": version,
                        "informationUri": TOOL_URI,
                        "rules": [
                            {
                                "id": rule,
                                "name": rule,
                                "shortDescription": {"text": descriptions.get(rule, rule)},
                            }
                            for rule in rules
                        ],
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2) + "\n"
