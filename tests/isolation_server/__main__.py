"""``python -m isolation_server``: serve the isolation test tools."""

from mcp_common.adapter import serve

from .app import APP

serve(APP)
