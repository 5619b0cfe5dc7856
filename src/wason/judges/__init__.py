"""Judges: decide whether a guess is the hidden rule, on a seeded probe set (see ``docs/guess-language.md``)."""

from wason.judges.equivalence import (
    APPROX_JACCARD_THRESHOLD,
    MAX_COUNTEREXAMPLES,
    Verdict,
    format_verdict,
    judge,
)
from wason.judges.lists import ListVerdict, judge_list_predicate, list_probes, quiz_lists
from wason.judges.probes import FAMILIES, PROBE_VERSION, REFERENCE_FAMILIES, ProbeSet, probe_set

__all__ = [
    "APPROX_JACCARD_THRESHOLD",
    "FAMILIES",
    "MAX_COUNTEREXAMPLES",
    "PROBE_VERSION",
    "REFERENCE_FAMILIES",
    "ListVerdict",
    "ProbeSet",
    "Verdict",
    "format_verdict",
    "judge",
    "judge_list_predicate",
    "list_probes",
    "probe_set",
    "quiz_lists",
]
