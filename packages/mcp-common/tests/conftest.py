"""The mcp-common tests. Being a conftest, this file puts its directory on ``sys.path``, so
the helper modules here (``isolated_work``, ``kit_tools``) import from any sub-folder."""
