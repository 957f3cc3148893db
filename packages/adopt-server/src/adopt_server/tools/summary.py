"""The Markdown summary and structured report a client reads, with no server path in them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mcp_common import AllowedPaths, guard_output, markdown_table, redact

from adopt_server.pipeline import RepositoryReport, structured_report


def client_report(reports: Sequence[RepositoryReport], root: AllowedPaths) -> dict[str, Any]:
    """The structured report with checkouts relative to the workspace root and every
    message redacted (credentials masked, absolute paths shortened)."""
    document = structured_report(reports)
    for entry in document["repositories"]:
        if entry["checkout"] is not None:
            entry["checkout"] = root.display(Path(entry["checkout"]))
        entry["repositoryUrl"] = redact(entry["repositoryUrl"])
        if entry["failure"] is not None:
            entry["failure"] = redact(entry["failure"])
    return document


def markdown_summary(document: dict[str, Any], *, verify: bool, dry_run: bool = False) -> str:
    """A heading, a one-line count and one table row per repository."""
    repositories = document["repositories"]
    done = sum(1 for r in repositories if r["succeeded"])
    mode = " (dry run: nothing pushed, no pull request)" if dry_run else ""
    rows = [
        [
            r["repositoryUrl"],
            "ok" if r["succeeded"] else "failed",
            r["build"] or "",
            r["checkout"] or "",
            r["pullRequestUrl"] or "",
            r["failure"] or ", ".join(r["completedSteps"][-1:]),
        ]
        for r in repositories
    ]
    table = markdown_table(
        ["Repository", "Result", "Build", "Checkout", "Pull request", "Failure / last step"],
        rows,
    )
    title, outcome = ("Verification", "verified") if verify else ("Adoption", "adopted")
    text = f"# {title} report\n\n{done} of {len(repositories)} repositories {outcome}"
    return guard_output(f"{text}{mode}.\n\n{table}\n", levers="fewer repositories per call")
