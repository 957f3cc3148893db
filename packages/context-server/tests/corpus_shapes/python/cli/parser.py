class OptionParser:
    def parse(self, args):
        return args
