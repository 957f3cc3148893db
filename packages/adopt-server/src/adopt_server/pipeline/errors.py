"""The failure a step raises when it cannot continue (command failures use CommandError)."""


class StepError(Exception):
    """A step could not complete; the message is credential-masked by the pipeline."""
