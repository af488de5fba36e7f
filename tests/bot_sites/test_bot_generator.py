import networkx as nx
import numpy as np
import pytest

from hybridsched.bot_sites.generator import SCENARIOS, generate, parse_range, preset
from hybridsched.errors import InputError


@pytest.mark.parametrize("scenario", list(SCENARIOS))
@pytest.mark.parametrize("consistent", [True, False])
def test_paper_setup(scenario, consistent):
    inst = generate(sites=10, bots=10, scenario=scenario, consistent=consistent, seed=7)
    assert ((inst.tasks >= 10000) & (inst.tasks <= 20000)).all()
    assert ((inst.procs >= 64) & (inst.procs <= 128)).all()
    r_task, r_site = SCENARIOS[scenario]
    assert inst.compute.min() >= 1 and inst.compute.max() <= r_task * r_site
    if consistent:
        assert (np.diff(inst.compute, axis=1) >= 0).all()
        assert (np.diff(inst.price) <= 0).all()          # faster sites are dearer
    assert nx.is_directed_acyclic_graph(nx.DiGraph(inst.edges.tolist()))
    assert (inst.price == 0).sum() == 3


def test_seed_determinism_and_dag_density():
    a = generate(bots=40, seed=1)
    b = generate(bots=40, seed=1)
    np.testing.assert_array_equal(a.compute, b.compute)
    np.testing.assert_array_equal(a.edges, b.edges)
    assert not np.array_equal(a.compute, generate(bots=40, seed=2).compute)
    assert 0.05 < len(a.edges) / (40 * 39 / 2) < 0.15


def test_communication_and_storage():
    inst = generate(sites=4, bots=5, seed=3, communication=True, storage=True)
    assert inst.data is not None and inst.site_bandwidth is not None
    assert (inst.p >= inst.compute).all() and (inst.p > inst.compute).any()
    assert inst.storage.min() >= 1 and inst.storage.max() <= 100


def test_preset_and_errors():
    inst = preset("gmo-table2-inconsistent")
    assert inst.reference == {"optimal_makespan": 23.0}
    with pytest.raises(InputError, match="unknown preset"):
        preset("nope")
    # The library names its parameters; the command line maps them to its flags.
    with pytest.raises(InputError, match="^scenario: "):
        generate(scenario="HiMid")
    with pytest.raises(InputError, match="^tasks_per_bot: "):
        generate(tasks_per_bot=(5, 2))
    assert parse_range("3:9", "--x") == (3, 9)
    with pytest.raises(InputError, match="--x"):
        parse_range("a:b", "--x")


@pytest.mark.parametrize("bots", [1, 2, 7, 60, 700])
@pytest.mark.parametrize("dependency", [0.0, 0.1, 0.6])
def test_dag_edges_are_the_draws_of_one_matrix_in_bounded_memory(bots, dependency, monkeypatch):
    """The edges drawn a block of rows at a time are the old whole-matrix draw's, and the
    generator is left where the whole matrix left it (so later draws are unchanged)."""
    from hybridsched.bot_sites import generator as module

    monkeypatch.setattr(module, "_EDGE_BLOCK", 256)
    old = np.random.default_rng(11)
    expected = np.argwhere(np.triu(old.random((bots, bots)) < dependency, k=1))
    new = np.random.default_rng(11)
    assert np.array_equal(module.dag_edges(new, bots, dependency), expected.reshape(-1, 2))
    assert new.random() == old.random()
