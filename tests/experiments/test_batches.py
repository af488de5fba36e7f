"""Batch sizes follow the run times seen: one run at a time first, then ~TARGET_BATCH_S."""

from __future__ import annotations

from hybridsched.experiments import batches
from hybridsched.experiments.batches import BatchSizer


def test_runs_go_one_at_a_time_until_enough_have_been_measured():
    sizer = BatchSizer(threads=2)
    for _ in range(batches.MEASURED_PER_THREAD * 2 - 1):
        assert sizer.size(1000) == 1
        sizer.observe(0.001)
    sizer.observe(0.001)
    assert sizer.size(1000) == batches.BATCH_MAX  # short runs: as many as allowed


def test_a_batch_holds_about_the_target_work():
    typical = batches.TARGET_BATCH_S / 4
    sizer = BatchSizer(threads=2, seen=[typical] * 8)
    assert sizer.size(1000) == 4
    slow = BatchSizer(threads=2, seen=[5.0] * 8)
    assert slow.size(1000) == 1  # a run longer than the target travels alone


def test_the_end_of_a_campaign_is_left_to_share():
    sizer = BatchSizer(threads=2, seen=[0.001] * 8)
    assert sizer.size(16) == 2  # 16 runs left: 8 batches, 4 per worker thread
    assert sizer.size(3) == 1
    assert sizer.size(0) == 0


def test_unknown_or_negative_times_are_ignored_and_recent_ones_count():
    sizer = BatchSizer(threads=1, seen=[10.0] * batches.RECENT_ROWS)
    sizer.observe(None)
    sizer.observe(-1.0)
    assert sizer.size(1000) == 1
    for _ in range(batches.RECENT_ROWS):
        sizer.observe(0.01)
    assert sizer.size(1000) == min(batches.BATCH_MAX, int(batches.TARGET_BATCH_S / 0.01))


def test_a_batch_runs_every_run_in_order(monkeypatch):
    seen = []
    monkeypatch.setattr(batches, "execute_run", lambda run: seen.append(run) or {"key": run})
    assert batches.execute_batch(["a", "b", "c"]) == [{"key": "a"}, {"key": "b"}, {"key": "c"}]
    assert seen == ["a", "b", "c"]


def test_warm_up_imports_the_methods_and_leaves_failures_to_the_runs(tmp_path):
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "from hybridsched.experiments.runner import warm_up\n"
        "assert 'hybridsched.heuristics.hybrid_deadline.cdf' not in sys.modules\n"
        "warm_up([('hybrid-deadline', 'cdf'), ('gang', 'no-such-method')], ())\n"
        "assert 'hybridsched.heuristics.hybrid_deadline.cdf' in sys.modules\n"
        f"warm_up([('hybrid-deadline', 'cdf')], ({str(tmp_path / 'missing.py')!r},))\n"
        "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
