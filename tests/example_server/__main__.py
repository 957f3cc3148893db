"""``python -m example_server`` (with ``tests/`` on ``PYTHONPATH``): the e2e example server."""

from example_server.app import APP
from mcp_common.adapter import serve

serve(APP)
