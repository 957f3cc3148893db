from .formatting import HelpFormatter
from .parser import OptionParser


class Context:
    def formatter(self):
        return HelpFormatter()


class Command:
    def parse_args(self, args):
        return OptionParser().parse(args)
