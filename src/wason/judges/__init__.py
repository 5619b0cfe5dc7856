"""Judges: decide whether a guess is the hidden rule, on a seeded probe set (see ``docs/guess-language.md``)."""

from wason.judges.equivalence import (
    APPROX_JACCARD_THRESHOLD,
    MAX_COUNTEREXAMPLES,
    Verdict,
    format_verdict,
    judge,
)
from wason.judges.probes import FAMILIES, PROBE_VERSION, REFERENCE_FAMILIES, ProbeSet, probe_set

__all__ = [
    "APPROX_JACCARD_THRESHOLD",
    "FAMILIES",
    "MAX_COUNTEREXAMPLES",
    "PROBE_VERSION",
    "REFERENCE_FAMILIES",
    "ProbeSet",
    "Verdict",
    "format_verdict",
    "judge",
    "probe_set",
]
