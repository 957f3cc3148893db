from .core import Command
from .utils import echo

__all__ = ["Command", "echo"]
