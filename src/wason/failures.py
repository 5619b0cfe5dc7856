"""The one exception every layer shares: a failure outside a game that ends its episode as errored.

It lives below everything else (models raise it, the engine and sessions catch it), so no lower layer has to
import the engine's contracts to raise it.
"""


class ExternalFailure(Exception):
    """A failure outside the game (a model call that failed for good, a person who left) that ends the episode
    as errored. ``what`` names the kind of failure in reports."""

    what = "failure"
