"""``uniqueness-server``: serve the uniqueness tools over MCP."""

from mcp_common.adapter import serve

from uniqueness_server.server import APP


def main() -> None:
    """Run the server from the command line."""
    serve(APP)


if __name__ == "__main__":
    main()
