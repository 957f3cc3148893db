"""The adoption pipeline as a plain Python API (no MCP).

``adopt_repositories(urls, workspace, options, observer)`` runs the steps of
:mod:`adopt_server.pipeline.steps` for each repository and returns one
:class:`RepositoryReport` each, in input order.
"""

from adopt_server.pipeline.batch import (
    Observer,
    SilentObserver,
    adopt_repositories,
    check_repositories,
)
from adopt_server.pipeline.options import (
    AdoptionOptions,
    OptionsError,
    default_workspace,
    prepare_workspace,
    validate_options,
)
from adopt_server.pipeline.report import (
    REPORT_SCHEMA,
    RepositoryReport,
    batch_json,
    structured_report,
)

__all__ = [
    "REPORT_SCHEMA",
    "AdoptionOptions",
    "Observer",
    "OptionsError",
    "RepositoryReport",
    "SilentObserver",
    "adopt_repositories",
    "batch_json",
    "check_repositories",
    "default_workspace",
    "prepare_workspace",
    "structured_report",
    "validate_options",
]
