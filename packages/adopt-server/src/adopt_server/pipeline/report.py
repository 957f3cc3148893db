"""The adoption report: one object per repository, a batch object for two or more."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp_common import mask_credentials


@dataclass(slots=True)
class RepositoryReport:
    """What happened to one repository; filled in as its steps run."""

    repository_url: str
    branch: str
    checkout: str | None = None
    pull_request_url: str | None = None
    failure: str | None = None
    completed_steps: list[str] = field(default_factory=list)
    build: str | None = None
    elapsed_seconds: float = 0.0

    @property
    def succeeded(self) -> bool:
        """Whether every step completed."""
        return self.failure is None

    def fail(self, message: str) -> None:
        """Record the first failure (later ones never overwrite it); credentials masked."""
        if self.failure is None:
            self.failure = mask_credentials(message.strip() or "failed")

    def to_json(self) -> dict[str, Any]:
        """The report object, keys in their documented order."""
        return {
            "repositoryUrl": mask_credentials(self.repository_url),
            "branch": self.branch,
            "checkout": self.checkout,
            "pullRequestUrl": self.pull_request_url,
            "succeeded": self.succeeded,
            "failure": self.failure,
            "completedSteps": list(self.completed_steps),
            "build": self.build,
            "elapsedSeconds": round(self.elapsed_seconds, 3),
        }


def batch_json(reports: Sequence[RepositoryReport]) -> dict[str, Any]:
    """The report of a run: the repository object for one repository, else a batch object."""
    if len(reports) == 1:
        return reports[0].to_json()
    return {
        "succeeded": all(r.succeeded for r in reports),
        "repositories": [r.to_json() for r in reports],
    }


_REPOSITORY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "repositoryUrl": {"type": "string", "description": "The URL, credentials masked."},
        "branch": {"type": "string", "description": "The feature branch used."},
        "checkout": {
            "type": ["string", "null"],
            "description": "The checkout directory; null when the run stopped before cloning.",
        },
        "pullRequestUrl": {"type": ["string", "null"], "description": "The pull request."},
        "succeeded": {"type": "boolean", "description": "Whether every step completed."},
        "failure": {
            "type": ["string", "null"],
            "description": "'<step>: <message>' of the first failure, or null.",
        },
        "completedSteps": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Step names that completed, in order.",
        },
        "build": {
            "type": ["string", "null"],
            "description": "Detected build system: maven, gradle, python or github-actions.",
        },
        "elapsedSeconds": {"type": "number", "description": "Wall time for this repository."},
    },
    "required": [
        "repositoryUrl",
        "branch",
        "checkout",
        "pullRequestUrl",
        "succeeded",
        "failure",
        "completedSteps",
    ],
}

REPORT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "succeeded": {"type": "boolean", "description": "Whether every repository succeeded."},
        "repositories": {
            "type": "array",
            "items": _REPOSITORY_SCHEMA,
            "description": "One report per repository, in input order.",
        },
    },
    "required": ["succeeded", "repositories"],
}
"""The structured report the MCP tools return: always the batch form, so one schema fits."""


def structured_report(reports: Sequence[RepositoryReport]) -> dict[str, Any]:
    """The batch object regardless of count (what the MCP output schema declares)."""
    return {
        "succeeded": all(r.succeeded for r in reports),
        "repositories": [r.to_json() for r in reports],
    }
