class HelpFormatter:
    def write(self, text):
        return text
