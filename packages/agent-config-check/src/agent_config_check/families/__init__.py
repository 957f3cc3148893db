"""The rule families, one module each; :mod:`agent_config_check.registry` lists them."""
