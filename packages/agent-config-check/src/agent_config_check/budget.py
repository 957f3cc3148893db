"""The work budget of one run's matching of repository-written patterns and globs.

The linear-time matchers (:mod:`agent_config_check.linear_regex`, :mod:`agent_config_check.globs`)
cannot backtrack, but a large program still costs one pass over it per character: a pattern
such as ``(a?){900}a{900}`` runs thousands of instructions per character, and a repository
writes both the patterns and the text. So every step they take is charged to a
:class:`MatchBudget`, one per run (a :class:`~agent_config_check.tree.ProjectTree` holds it):
at most :data:`BASE_STEPS` plus :data:`STEPS_PER_CHARACTER` for every character a matcher is
handed, and never more than :data:`MAX_STEPS` in all. Matching past it stops with
:class:`BudgetSpentError`, which the rule reports as a finding (:func:`over_budget`); the other
rules are not affected. The patterns real configurations use cost one or two steps a character.
"""

from __future__ import annotations

BASE_STEPS = 100_000
"""Steps every run may spend whatever the text (building a few states of a large program)."""
STEPS_PER_CHARACTER = 64
"""Steps added to the budget for each character handed to a matcher."""
MAX_STEPS = 50_000_000
"""The most steps one run may spend on repository-written patterns and globs."""
_SHOWN = 60


class BudgetSpentError(RuntimeError):
    """Matching stopped: the run's :class:`MatchBudget` is spent."""

    def __init__(self, limit: int) -> None:
        """``limit``: the step count the matching reached."""
        super().__init__(
            f"the budget of {limit:,} steps is spent ({BASE_STEPS:,} + {STEPS_PER_CHARACTER} "
            f"per character examined, at most {MAX_STEPS:,} a run)"
        )
        self.limit = limit


class MatchBudget:
    """The steps one run's matchers may still take (see the module docstring)."""

    def __init__(self) -> None:
        """A fresh budget: :data:`BASE_STEPS`, growing with the characters examined."""
        self.spent = 0
        self.limit = BASE_STEPS

    def examine(self, characters: int) -> int:
        """Grant the steps for ``characters`` more characters; returns how many steps the
        caller may take from now on."""
        self.limit = min(MAX_STEPS, self.limit + STEPS_PER_CHARACTER * characters)
        return self.limit - self.spent

    def charge(self, steps: int) -> None:
        """Record ``steps`` taken (at most one character's work past what was granted)."""
        self.spent += steps


def over_budget(what: str, where: str, error: BudgetSpentError) -> str:
    """The finding for matching that ran out of budget: which pattern or globs (``what``),
    against what (``where``), and the limit; a long pattern or path is cut short."""
    return (
        f"matching {_short(what)} against {_short(where)} stopped: {error}; simplify it "
        "(patterns and globs from the repository run on a bounded linear-time matcher)"
    )


def _short(text: str) -> str:
    return text if len(text) <= _SHOWN else f"{text[:_SHOWN]}... ({len(text):,} characters)"
