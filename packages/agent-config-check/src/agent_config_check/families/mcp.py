"""``.mcp.json``: the MCP servers a project configures (``mcpServersValid``,
``mcpConfigFormat``)."""

from __future__ import annotations

import re
from typing import Any

from agent_config_check.family import (
    MCP_JSON,
    Found,
    Options,
    Rule,
    RuleFamily,
    has_file,
    json_object,
    line_of,
)
from agent_config_check.tree import ProjectTree


def _servers(
    tree: ProjectTree, path: str, found: list[Found], *, required: bool
) -> dict[str, Any] | None:
    config, problems = json_object(tree, path, "mcp.json")
    found += problems
    if config is None:
        return None
    if "mcpServers" not in config:
        if required:
            found.append(Found(path, 1, "mcp.json is missing the 'mcpServers' object"))
        return None
    servers = config["mcpServers"]
    if not isinstance(servers, dict):
        found.append(
            Found(
                path,
                line_of(tree, path, "mcpServers"),
                "mcp.json 'mcpServers' must be a JSON object",
            )
        )
        return None
    return servers


def _server(tree: ProjectTree, path: str, name: str, problem: str) -> Found:
    return Found(path, line_of(tree, path, name), f"mcp.json server '{name}' {problem}")


def mcp_servers_valid(tree: ProjectTree, options: Options) -> list[Found]:
    """``mcpServersValid``: each server is an object well formed for its transport (stdio
    needs a ``command``; sse/http a ``url``), an unknown ``type`` is reported, and the
    required/forbidden servers are honoured."""
    path = options["mcpFile"]
    found: list[Found] = []
    servers = _servers(tree, path, found, required=True)
    if servers is None:
        return found
    allowed = options["allowedTypes"] or ["stdio", "sse", "http"]
    for name, server in servers.items():
        if not isinstance(server, dict):
            found.append(_server(tree, path, name, "must be a JSON object"))
            continue
        if "type" in server and not isinstance(server["type"], str):
            found.append(_server(tree, path, name, "has a 'type' that is not a string"))
            continue
        kind = str(server.get("type", "")).strip()
        if not kind:
            if "command" in server:
                found += _command_problem(tree, path, name, server)
            else:
                found.append(
                    _server(
                        tree,
                        path,
                        name,
                        "must declare a 'command' (stdio) or a 'type' with a 'url' (sse/http)",
                    )
                )
        elif kind not in allowed:
            found.append(_server(tree, path, name, f"has an unsupported type: {kind}"))
        elif kind == "stdio":
            found += _command_problem(tree, path, name, server)
        elif "url" in server and not isinstance(server["url"], str):
            found.append(_server(tree, path, name, "has a 'url' that is not a string"))
        elif not str(server.get("url", "")).strip():
            found.append(_server(tree, path, name, f"({kind}) is missing a 'url'"))
    found += [
        Found(path, 1, f"mcp.json is missing required server: {name}")
        for name in options["requiredServers"]
        if name not in servers
    ]
    found += [
        Found(path, line_of(tree, path, name), f"mcp.json contains forbidden server: {name}")
        for name in options["forbiddenServers"]
        if name in servers
    ]
    return found


def _command_problem(
    tree: ProjectTree, path: str, name: str, server: dict[str, Any]
) -> list[Found]:
    if "command" in server and not isinstance(server["command"], str):
        return [_server(tree, path, name, "has a 'command' that is not a string")]
    if not str(server.get("command", "")).strip():
        return [_server(tree, path, name, "(stdio) is missing a 'command'")]
    return []


_VARIABLE = re.compile(r"\$[A-Za-z_]")
# The host and what follows cannot overlap (what follows starts with / ? or #), so a hostile
# URL costs one pass.
_URL = re.compile(r"(?i)(https?)://([^/?#\s]+)(?:[/?#]\S*)?")


def _has_expansion(url: str) -> bool:
    """Whether ``url`` holds a ``${VAR}`` or ``$VAR`` expansion (checked when it is used)."""
    opened = url.find("${")
    return (opened >= 0 and url.find("}", opened) >= 0) or _VARIABLE.search(url) is not None


def mcp_config_format(tree: ProjectTree, options: Options) -> list[Found]:
    """``mcpConfigFormat``: not both ``command`` and ``url``; ``args`` a list of strings;
    ``env``/``headers`` maps of strings; a well-formed (optionally https) ``url``."""
    path = options["mcpFile"]
    found: list[Found] = []
    servers = _servers(tree, path, found, required=False)
    if servers is None:
        return found
    for name, server in servers.items():
        if not isinstance(server, dict):
            continue
        if "command" in server and "url" in server:
            found.append(_server(tree, path, name, "declares both a 'command' and a 'url'"))
        args = server.get("args")
        if "args" in server and not isinstance(args, list):
            found.append(_server(tree, path, name, "has an 'args' that is not an array"))
        elif isinstance(args, list):
            found += [
                _server(tree, path, name, "has a non-string entry in 'args'")
                for arg in args
                if not isinstance(arg, str)
            ]
        for key in ("env", "headers"):
            mapping = server.get(key)
            if key in server and not isinstance(mapping, dict):
                found.append(_server(tree, path, name, f"has a '{key}' that is not an object"))
            elif isinstance(mapping, dict):
                found += [
                    _server(tree, path, name, f"has a non-string value for '{key}.{field}'")
                    for field, value in mapping.items()
                    if not isinstance(value, str)
                ]
        if "url" in server and not isinstance(server["url"], str):
            found.append(_server(tree, path, name, "has a 'url' that is not a string"))
            continue
        url = server.get("url")
        if not isinstance(url, str) or _has_expansion(url):
            continue
        match = _URL.fullmatch(url.strip())
        if match is None:
            found.append(_server(tree, path, name, f"has a malformed 'url': {url}"))
        elif options["requireHttps"] and match.group(1).lower() != "https":
            found.append(_server(tree, path, name, f"must use an https 'url': {url}"))
    return found


MCP_RULES = RuleFamily(
    "mcp",
    (
        Rule(
            "mcpServersValid",
            ".mcp.json servers are well formed for their transport; required/forbidden servers",
            mcp_servers_valid,
            {
                "mcpFile": MCP_JSON,
                "requiredServers": [],
                "forbiddenServers": [],
                "allowedTypes": [],
            },
            has_file("mcpFile"),
        ),
        Rule(
            "mcpConfigFormat",
            ".mcp.json args, env, headers and url are well formed",
            mcp_config_format,
            {"mcpFile": MCP_JSON, "requireHttps": False},
            has_file("mcpFile"),
        ),
    ),
)
"""``.mcp.json``: the MCP servers a project configures."""
