"""How the adoption starts ``claude`` in a checkout: the flags and the environment.

``claude -p`` works inside a repository an attacker may have written, so it is started the
way a repository cannot steer: ``--setting-sources user`` leaves out the repository's own
settings (``.claude/settings.json``, ``.claude/settings.local.json``: their hooks,
``apiKeyHelper``, ``env``, permission rules, and its project commands), and
``--strict-mcp-config`` (with no ``--mcp-config``) starts no MCP server, so a repository's
``.mcp.json`` starts nothing either. It runs with :func:`claude_environment`: what a build
sees plus what claude needs to reach its model, nothing else of the server's environment.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from adopt_server.pipeline.runner import CommandResult, CommandRunner, build_environment

SETTING_SOURCES = "user"
"""The only settings ``claude`` reads: the operator's own (``~/.claude/settings.json``)."""

EDIT_MODE = ("--permission-mode", "acceptEdits")
ISOLATION = ("--setting-sources", SETTING_SOURCES, "--strict-mcp-config")

CLAUDE_VARIABLES = frozenset(
    {
        # how claude authenticates and which endpoint and models it asks
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "ANTHROPIC_BASE_URL",
        "ANTHROPIC_CUSTOM_HEADERS",
        "ANTHROPIC_MODEL",
        "ANTHROPIC_DEFAULT_OPUS_MODEL",
        "ANTHROPIC_DEFAULT_SONNET_MODEL",
        "ANTHROPIC_DEFAULT_HAIKU_MODEL",
        "API_TIMEOUT_MS",
        # where its login and configuration live, and a CA a TLS-inspecting proxy needs
        "CLAUDE_CONFIG_DIR",
        "NODE_EXTRA_CA_CERTS",
        # the operator's opt-outs, which must not silently turn back on
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
        "DISABLE_TELEMETRY",
        "DISABLE_ERROR_REPORTING",
        "DISABLE_AUTOUPDATER",
    }
)
"""What ``claude`` keeps of the server's environment beyond :func:`build_environment`."""

_TRUE = frozenset({"1", "true", "yes", "on"})
"""The values claude reads as "on" in a switch."""


@dataclass(frozen=True, slots=True)
class Provider:
    """A cloud provider ``claude`` can call instead of Anthropic's API: the variable that
    switches it on (always kept) and the credentials and settings claude needs from it (kept
    only while the switch is on, so an AWS key reaches claude only when it is to call
    Bedrock); ``prefixes`` name families of such variables."""

    switch: str
    variables: frozenset[str]
    prefixes: tuple[str, ...] = ()

    def kept(self, environ: Mapping[str, str]) -> set[str]:
        """The names of ``environ`` this provider keeps."""
        if environ.get(self.switch, "").strip().lower() not in _TRUE:
            return {self.switch} & environ.keys()
        return {
            name
            for name in environ
            if name == self.switch or name in self.variables or name.startswith(self.prefixes)
        }


PROVIDERS = (
    Provider(
        "CLAUDE_CODE_USE_BEDROCK",
        frozenset(
            {
                "AWS_REGION",
                "AWS_PROFILE",
                "AWS_ACCESS_KEY_ID",
                "AWS_SECRET_ACCESS_KEY",
                "AWS_SESSION_TOKEN",
                "AWS_BEARER_TOKEN_BEDROCK",
                "AWS_CONFIG_FILE",
                "AWS_SHARED_CREDENTIALS_FILE",
                "ANTHROPIC_BEDROCK_BASE_URL",
                "CLAUDE_CODE_SKIP_BEDROCK_AUTH",
            }
        ),
    ),
    Provider(
        "CLAUDE_CODE_USE_VERTEX",
        frozenset(
            {
                "CLOUD_ML_REGION",
                "ANTHROPIC_VERTEX_PROJECT_ID",
                "ANTHROPIC_VERTEX_BASE_URL",
                "CLAUDE_CODE_SKIP_VERTEX_AUTH",
                "GOOGLE_APPLICATION_CREDENTIALS",
                "GOOGLE_CLOUD_PROJECT",
                "GCLOUD_PROJECT",
            }
        ),
        prefixes=("VERTEX_REGION_",),
    ),
    Provider(
        "CLAUDE_CODE_USE_FOUNDRY",
        frozenset(
            {
                "ANTHROPIC_FOUNDRY_API_KEY",
                "ANTHROPIC_FOUNDRY_RESOURCE",
                "ANTHROPIC_FOUNDRY_BASE_URL",
                "CLAUDE_CODE_SKIP_FOUNDRY_AUTH",
            }
        ),
    ),
)


def claude_argv(prompt: str) -> tuple[str, ...]:
    """``claude -p <prompt>`` with edits allowed and the repository's own settings and MCP
    servers left out."""
    return ("claude", "-p", prompt, *EDIT_MODE, *ISOLATION)


def claude_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The part of ``environ`` ``claude`` runs with: :func:`build_environment`, the names of
    :data:`CLAUDE_VARIABLES`, and what each of :data:`PROVIDERS` keeps. No ``GH_TOKEN``,
    ``GITHUB_TOKEN``, git credential or key of anything else."""
    names = (CLAUDE_VARIABLES & environ.keys()).union(
        *(provider.kept(environ) for provider in PROVIDERS)
    )
    return {**build_environment(environ), **{name: environ[name] for name in names}}


def run_claude_prompt(runner: CommandRunner, cwd: Path, prompt: str) -> CommandResult:
    """Run :func:`claude_argv` in ``cwd`` with :func:`claude_environment`."""
    return runner.run(cwd, claude_argv(prompt), allowed_environment=claude_environment)
