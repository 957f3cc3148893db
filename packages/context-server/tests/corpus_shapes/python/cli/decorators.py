from .core import Command
from .utils import echo


def command(name):
    echo(name)
    return Command()
