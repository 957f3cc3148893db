"""``context-server``: run the MCP server (``python -m context_server`` works too)."""

from mcp_common.adapter import serve

from context_server.server import APP


def main() -> None:
    """Serve the context tools over the transport chosen on the command line."""
    serve(APP)


if __name__ == "__main__":
    main()
