"""The uniqueness engine: a plain Python API, no MCP.

Open a source with :func:`open_file` or :meth:`DatabaseRegistry.open`, then ask
:func:`check_uniqueness` (or :func:`approximate_check`), :func:`find_keys` or
:func:`profile_columns`; close the table after. A source's queries run on its backend
(:mod:`uniqueness_server.engine.backend` describes the interface, :mod:`.backends` holds one
module per backend).

Each name loads its module on first use (:mod:`lazy_loader`, from the names ``__init__.pyi``
declares): importing one light part (the models, the limits) does not load DuckDB, Arrow and
NumPy, so ``uniqueness-check --help`` and the tools' argument models stay quick.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
