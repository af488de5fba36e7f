"""The HiGHS options of the driver avoid a wrong optimum HiGHS 1.15 gives with a MIP start.

The model is a bot-sites DAG makespan MILP (found by the Pareto brute-force
cross-check): with a MIP start, presolve and an integrality tolerance of 1e-7
or tighter, HiGHS reported "optimal" at 8.03 although 5.873 is optimal.
"""

import json
from pathlib import Path

import highspy
import pytest

from hybridsched.models.solvers.highs import HIGHS_OPTIONS

DATA = Path(__file__).resolve().parent / "data"
TRUE_OPTIMUM = 5.873


def solve(options: dict, with_start: bool) -> tuple[object, float]:
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(DATA / "highs_mipstart_dag.mps"))
    for key, value in {**options, "mip_rel_gap": 0.0, "mip_abs_gap": 0.0}.items():
        h.setOptionValue(key, value)
    if with_start:
        start = highspy.HighsSolution()
        start.col_value = json.loads((DATA / "highs_mipstart_dag.start.json").read_text())
        start.value_valid = True
        h.setSolution(start)
    h.run()
    return h.getModelStatus(), h.getInfo().objective_function_value


@pytest.mark.parametrize("with_start", [True, False])
def test_driver_options_give_the_true_optimum(with_start):
    status, value = solve(HIGHS_OPTIONS, with_start)
    assert status == highspy.HighsModelStatus.kOptimal
    assert value == pytest.approx(TRUE_OPTIMUM, rel=1e-9)
