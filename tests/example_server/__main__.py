"""``python -m example_server`` (with ``tests/`` on ``PYTHONPATH``): the e2e example server."""

from mcp_common.adapter import serve

from .app import APP

serve(APP)
