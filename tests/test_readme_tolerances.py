"""The docs' feasibility-and-tolerance table states the checkers' and proofs' own numbers.

Each row of the table names the tolerances of one family; every number it
prints must be one of that family's constants, and every constant must be
printed: a tolerance changed in code and not in the docs (or the reverse)
fails here. The table is in ``docs/guide/command-line.md`` (it moved from the
README in issue 33), between "**Feasibility and tolerances.**" and "**Exit codes**".
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hybridsched.bot_sites import checker as bot_checker
from hybridsched.family import CLAIM_RTOL
from hybridsched.gang import checker as gang_checker
from hybridsched.hybrid_deadline.instance import TIME_TOL as HD_TOL
from hybridsched.models.bot_sites import claims as bot_claims
from hybridsched.models.hybrid_deadline import claims as hd_claims
from hybridsched.models.malleable import cpsat as malleable_cpsat
from hybridsched.models.malleable import milp_batch
from hybridsched.models.pull import offline as pull_offline
from hybridsched.pull import checker as pull_checker

PAGE = Path(__file__).resolve().parents[1] / "docs" / "guide" / "command-line.md"

#: Per family, the constants its row must state (the numbers, in any order).
CONSTANTS = {
    "hybrid-deadline": {HD_TOL, hd_claims.OPTIMALITY_RTOL, hd_claims.OPTIMALITY_ATOL},
    "bot-sites": {bot_checker.TOL, bot_checker.LIMIT_TOL, bot_claims.CLAIM_RTOL},
    "gang": {gang_checker.TIME_TOL},
    "malleable": {milp_batch.TOLERANCE, malleable_cpsat.TOLERANCE},
    "pull": {pull_checker.TIME_TOL, pull_offline.TOL},
}


def section() -> str:
    text = PAGE.read_text()
    return text[text.index("**Feasibility and tolerances.**"):text.index("**Exit codes**")]


def table_rows() -> dict[str, str]:
    rows = {}
    for line in section().splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("|") and cells[0] in CONSTANTS:
            rows[cells[0]] = line
    return rows


@pytest.mark.parametrize("family", sorted(CONSTANTS))
def test_the_docs_row_states_the_family_s_tolerances(family):
    row = table_rows()[family]
    printed = {float(x) for x in re.findall(r"\d+(?:\.\d+)?e-\d+", row)}
    assert printed == CONSTANTS[family], (family, printed, CONSTANTS[family])


def test_claims_are_compared_within_the_stated_relative_tolerance():
    stated = re.search(r"within\s+(\S+)\s+relative\s+\(a\s+claim\s+never", section())
    assert stated and float(stated.group(1)) == CLAIM_RTOL
