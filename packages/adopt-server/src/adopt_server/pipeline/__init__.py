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
    BatchOutcome,
    RepositoryOutcome,
    RepositoryReport,
    batch_json,
)

__all__ = [
    "AdoptionOptions",
    "BatchOutcome",
    "Observer",
    "OptionsError",
    "RepositoryOutcome",
    "RepositoryReport",
    "SilentObserver",
    "adopt_repositories",
    "batch_json",
    "check_repositories",
    "default_workspace",
    "prepare_workspace",
    "validate_options",
]
