from mcp_common.adapter import serve

from adopt_server.server import APP


def main() -> None:
    """Run adopt-server."""
    serve(APP)


if __name__ == "__main__":
    main()
