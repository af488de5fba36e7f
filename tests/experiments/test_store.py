"""The result store: durable rows, atomic parts, recovery after a killed writer, one writer."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hybridsched.errors import InputError
from hybridsched.experiments import store as store_module
from hybridsched.experiments import store_format, store_read
from hybridsched.experiments.store import ResultStore
from hybridsched.experiments.store_read import load_results, read_store


def _row(key: str, **values) -> dict:
    return {"key": key, "family": "hybrid-deadline", "instance": "i", "instance_hash": "h",
            "objective_name": "rent cost ($)", "method": "m", "status": "feasible",
            "objective": 1.0, "metrics": json.dumps({"cost": 1.0, "makespan": 2.5}),
            **values}


def test_rows_are_readable_at_once_and_parts_merge_at_close(tmp_path):
    with ResultStore(tmp_path) as store:
        store.add([_row("a"), _row("b")])
        assert set(read_store(tmp_path).column("key").to_pylist()) == {"a", "b"}
        store.flush()
        store.add([_row("c"), _row("a")])  # a key already stored is not added twice
    parts = list(tmp_path.glob("part-*.parquet"))
    assert len(parts) == 1 and not list(tmp_path.glob("_journal-*"))
    table = pd.read_parquet(tmp_path)
    assert sorted(table["key"]) == ["a", "b", "c"]
    assert table["gap"].isna().all() and set(table["reference_kind"]) == {"none"}
    loaded = load_results(tmp_path)
    assert list(loaded["metric_makespan"]) == [2.5, 2.5, 2.5]


def test_a_killed_writer_loses_only_a_cut_line(tmp_path):
    with ResultStore(tmp_path) as store:
        store.add([_row("a")])
    journal = tmp_path / "_journal-dead.jsonl"
    journal.write_text(json.dumps(_row("b")) + "\n" + json.dumps(_row("a")) + "\n"
                       + json.dumps(_row("c"))[:20])  # "c" was being written
    (tmp_path / ".part-x.parquet.tmp").write_bytes(b"PAR1 half")
    with ResultStore(tmp_path) as store:
        assert store.keys() == {"a", "b"}
    assert sorted(pd.read_parquet(tmp_path)["key"]) == ["a", "b"]
    assert not journal.exists()


def test_a_merge_cut_short_is_finished_by_the_next_writer(tmp_path, monkeypatch):
    with ResultStore(tmp_path) as store:
        store.add([_row("a")])
        store.flush()
        store.add([_row("b")])
        store.flush()
        old = sorted(p.name for p in tmp_path.glob("part-*.parquet"))
        # Crash right after the merged part is renamed into place: the old parts remain.
        monkeypatch.setattr(store_module.Path, "unlink", lambda self, missing_ok=False: None)
        store.merge()
        monkeypatch.undo()
        assert len(list(tmp_path.glob("part-*.parquet"))) == 3
        assert read_store(tmp_path).num_rows == 2  # readers drop the duplicates anyway
    with ResultStore(tmp_path):
        pass
    names = sorted(p.name for p in tmp_path.glob("part-*.parquet"))
    assert len(names) == 1 and names[0] not in old
    metadata = pq.read_schema(tmp_path / names[0]).metadata or {}
    replaced = json.loads(metadata[store_format.REPLACES])
    assert replaced and not any((tmp_path / name).exists() for name in replaced)
    assert sorted(pd.read_parquet(tmp_path)["key"]) == ["a", "b"]


def test_one_writer_at_a_time(tmp_path):
    with ResultStore(tmp_path), pytest.raises(InputError, match="another campaign"):
        ResultStore(tmp_path).open()


def test_a_folder_with_other_files_is_not_taken_over(tmp_path):
    (tmp_path / "thesis.tex").write_text("precious")
    with pytest.raises(InputError, match="not a result store"):
        ResultStore(tmp_path).open()
    with pytest.raises(InputError, match="not a result store"):
        load_results(tmp_path)
    with pytest.raises(InputError, match="no such folder"):
        load_results(tmp_path / "missing")


def test_parts_of_another_column_set_read_with_the_store_schema(tmp_path):
    with ResultStore(tmp_path) as store:
        store.add([_row("a")])
    # A part written before a column existed, and one written with a column added later.
    old = pa_table([_row("b")]).drop(["solution", "gap", "versions"])
    pq.write_table(old, tmp_path / "part-0-old.parquet")
    new = pa_table([_row("c")]).append_column("a_later_column", pa.array(["x"]))
    pq.write_table(new, tmp_path / "part-0-new.parquet")
    table = read_store(tmp_path)
    assert table.schema == store_format.SCHEMA
    assert sorted(table.column("key").to_pylist()) == ["a", "b", "c"]
    with ResultStore(tmp_path) as store:  # a resume merges them
        assert store.keys() == {"a", "b", "c"}
    assert sorted(load_results(tmp_path)["key"]) == ["a", "b", "c"]


def test_a_reader_tries_again_when_a_running_campaign_moves_files(tmp_path, monkeypatch):
    with ResultStore(tmp_path) as store:
        store.add([_row("a")])
    real, calls = store_read._read_once, []

    def moving(folder, warn, columns=None):
        calls.append(1)
        if len(calls) < 3:
            raise store_format.VanishedError(folder / "part-gone.parquet")
        return real(folder, warn, columns)

    monkeypatch.setattr(store_read, "_read_once", moving)
    assert read_store(tmp_path).num_rows == 1 and len(calls) == 3
    calls.clear()
    monkeypatch.setattr(store_read, "READ_ATTEMPTS", 2)
    with pytest.raises(InputError, match="part-gone.parquet: vanished while the store was read"):
        read_store(tmp_path)


def test_check_resume_knows_the_campaign_of_rows_or_of_the_spec_copy(tmp_path):
    from hybridsched.experiments.store_read import check_resume, stored_campaigns

    assert stored_campaigns(tmp_path / "new") == []
    check_resume(tmp_path / "new", "any")  # a new folder takes any campaign
    (tmp_path / "s").mkdir()
    with ResultStore(tmp_path / "s") as store:
        store.save_spec('[campaign]\nname = "spec-name"\n')
    assert stored_campaigns(tmp_path / "s") == ["spec-name"]  # no row yet: the spec says
    with ResultStore(tmp_path / "s") as store:
        store.add([_row("a", campaign="row-name")])
    assert stored_campaigns(tmp_path / "s") == ["row-name"]  # rows say who wrote them
    check_resume(tmp_path / "s", "row-name")
    with pytest.raises(InputError, match="holds campaign 'row-name', not 'other'"):
        check_resume(tmp_path / "s", "other")


def pa_table(rows: list[dict]):
    return store_format.rows_table(rows)
