"""The ``okf_bundle`` tool: the project as an Open Knowledge Format bundle, never written."""

from __future__ import annotations

from typing import Annotated

from mcp_common import (
    Clamp,
    Int,
    Offset,
    Page,
    PageInfo,
    Pagination,
    StructuredResult,
    ToolAnnotations,
    ToolContext,
    ToolDefinition,
    ToolResult,
    package_version,
)

from context_server import DISTRIBUTION
from context_server.core.okf import OKF_VERSION, build_bundle
from context_server.core.service import ContextService
from context_server.core.tree import stored_tree
from context_server.tools.fit import fit_page, shortened_note
from context_server.tools.progress import indexing_progress
from context_server.tools.schema import ProjectArguments
from context_server.tools.settle import settled

DEFAULT_LIMIT = 200
MAX_LIMIT = 2000


class BundleArguments(ProjectArguments):
    """The project, and which page of its bundle's documents to return."""

    limit: Annotated[Int, Clamp(1, MAX_LIMIT)] = Pagination.limit_field(
        DEFAULT_LIMIT, MAX_LIMIT, "documents"
    )
    offset: Offset = Pagination.offset_field("documents")


class BundleDocument(StructuredResult):
    """One OKF document: its path inside the bundle and its Markdown."""

    path: str
    content: str


class BundleAnswer(StructuredResult):
    """The answer of ``okf_bundle``: one page of the bundle's documents."""

    okf_version: str
    documents: list[BundleDocument]
    page: PageInfo


DEFINITION = ToolDefinition(
    name="okf_bundle",
    description=(
        "Describe a project as an Open Knowledge Format (OKF v0.2) bundle of Markdown "
        "documents, returned and never written to disk."
    ),
    arguments=BundleArguments,
    annotations=ToolAnnotations.read_only_tool(title="OKF bundle"),
    result=BundleAnswer,
)


def markdown(page: Page[BundleDocument]) -> str:
    """The answer for a model to read: one page of documents, each whole."""
    parts = [f"# OKF {OKF_VERSION} bundle: {page.total} documents{page.notice}\n"]
    note = shortened_note(page, "documents")
    if note:
        parts.append(f"\n{note}")
    for document in page.items:
        parts.append(f"\n## {document.path}\n\n````markdown\n{document.content}````\n")
    return "".join(parts)


class OkfBundleTool:
    """Returns the project as OKF v0.2 documents: one concept per file, an index per folder."""

    definition = DEFINITION

    def __init__(self, service: ContextService) -> None:
        self._service = service
        self._producer = f"context-server/{package_version(DISTRIBUTION)}"

    @settled
    def call(self, arguments: BundleArguments, context: ToolContext) -> ToolResult:
        """Build the bundle in memory and return one page of its documents."""
        index = self._service.index(
            arguments.path, arguments.language, context.check_cancelled, indexing_progress(context)
        )
        built = build_bundle(
            stored_tree(index, arguments.depth).root, index.languages, self._producer
        )
        documents = [BundleDocument(path=d.path, content=d.content) for d in built]
        page, text = fit_page(
            Pagination(arguments.limit, arguments.offset).apply(documents), markdown
        )
        answer = BundleAnswer(okf_version=OKF_VERSION, documents=list(page.items), page=page.info())
        return ToolResult.success(text, answer)
