"""The day-by-day pipeline (make demo), in-process on real dbt, Spark and Iceberg."""

from __future__ import annotations

import pytest
from pyspark.sql import SparkSession

from python_helpers.pipeline.reconcile import audit_column_names, reconcile
from python_helpers.pipeline.run import PipelineOptions, StepTimer, main, report, run_days
from python_helpers.tooling.scratch import ScratchProject


@pytest.fixture(scope="module")
def pipeline_run(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory):
    """Three days of 300 keys (3 keys, 4 non-keys), the project's own snapshots and models."""
    root = tmp_path_factory.mktemp("pipeline") / "project"
    project = ScratchProject(root, "pipeline_it", spark, include=("models", "snapshots"))
    options = PipelineOptions(
        no_init_recs=300,
        no_incr_recs=300,
        no_keys=3,
        no_nonkeys=4,
        pct_del=0.1,
        pct_upd=0.6,
        pct_unchanged=0.3,
        days=3,
        seed=7,
        schema=project.schema,
        project_dir=root,
    )
    results = run_days(options, StepTimer())
    return project, options, results


def test_every_day_reconciles_with_the_manifest(pipeline_run, capsys) -> None:
    _project, options, results = pipeline_run
    snapshots = {r.snapshot for r in results}
    assert snapshots == {"cdc_check_snapshot", "cdc_timestamp_snapshot"}
    assert len(results) == 2 * options.days
    # One run (process id) per day, shared by both snapshots of that day.
    run_ids = {r.day: r.run_id for r in results}
    assert len(set(run_ids.values())) == options.days
    for r in results:
        assert r.all_ok, r
        if r.day == 1:
            assert r.observed == {"I": 300}
        else:
            # of 300 previous keys: 30 deleted, 180 updated, 90 unchanged; 30 new keys
            assert r.observed == {"D": 30, "U": 180, "N": 90, "I": 30}
            assert r.keys_compared == 330
    assert report(results, StepTimer()) is True
    out = capsys.readouterr().out
    assert "U 180, N 90, I 30, D 30" in out
    assert "MISMATCH" not in out and "every reconciliation OK" in out


def test_reconciliation_catches_a_wrong_manifest(pipeline_run) -> None:
    """Flip one key's expected change: the per-key comparison must flag exactly that key."""
    project, _options, results = pipeline_run
    spark = project.spark
    last = next(r for r in results if r.snapshot == "cdc_check_snapshot" and r.day == 3)
    manifest = project.table("cdc_changes")
    spark.sql(f"create table {manifest}_tampered using iceberg as select * from {manifest}")
    spark.sql(
        f"""
        merge into {manifest}_tampered as t
        using (select * from {manifest} where change_type = 'updated' limit 1) as s
        on t.key_1 = s.key_1 and t.key_2 = s.key_2 and t.key_3 = s.key_3
        when matched then update set change_type = 'unchanged'
        """
    )
    keys = ["key_1", "key_2", "key_3"]

    def execute(sql: str) -> list[tuple]:
        return [tuple(row) for row in spark.sql(sql).collect()]

    bad = reconcile(
        execute,
        project.schema,
        "cdc_check_snapshot",
        3,
        last.run_id,
        keys,
        audit_column_names(project.root, ["--target", "local"]),
        manifest="cdc_changes_tampered",
    )
    assert not bad.all_ok
    assert bad.keys_differing == 1
    assert not bad.ok("U") and not bad.ok("N") and bad.ok("I") and bad.ok("D")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--pct-del", "1.5"], "pct_del"),
        (["--pct-del", "0.3"], "sum"),
        (["--incr-recs", "10", "--init-recs", "100"], "no_incr_recs"),
        (["--schema", "bad-name"], "--schema must be a plain identifier"),
        (["--target", "thrift", "--format", "table"], "--format table"),
    ],
)
def test_bad_arguments_exit_2_and_touch_nothing(
    argv: list[str], message: str, capsys, tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv("LAKEHOUSE_DIR", str(tmp_path / "lake"))
    marker = tmp_path / "lake" / "warehouse" / "keep.txt"
    marker.parent.mkdir(parents=True)
    marker.write_text("existing data")
    assert main(argv) == 2
    assert message in capsys.readouterr().err
    assert marker.read_text() == "existing data"


@pytest.mark.parametrize("argv", [["--days", "0"], ["--keys", "0"], ["--format", "parquet"]])
def test_bad_option_values_are_refused_by_the_parser(argv: list[str], capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_documented_daily_path(spark: SparkSession, tmp_path) -> None:
    """docs/running-dbt.md, "Running dbt by hand": generate a day, `dbt build`, next day, `dbt
    build`. Every node and test passes, and day 2's snapshot runs match the generator's shares:
    500 keys, 100 deleted, 200 updated, 200 unchanged, 100 new."""
    from python_helpers.generator.cli import main as generate

    project = ScratchProject(
        tmp_path / "project", "daily_path", spark, include=("models", "snapshots")
    )
    anchor = ["500", "500", "5", "10", "0.2", "0.4", "0.4"]
    builds = []
    for day in (1, 2):
        assert (
            generate([*anchor, "--day", str(day), "--seeds-dir", str(project.generated_seeds)]) == 0
        )
        builds.append(project.dbt("build"))
    kinds = {}
    for result in builds[1].result.results:
        assert str(result.status).lower() in {"success", "pass"}, (result.node.unique_id, result)
        kinds[result.node.resource_type] = kinds.get(result.node.resource_type, 0) + 1
    assert kinds["seed"] == 2 and kinds["snapshot"] == 2 and kinds["model"] == 8, kinds
    assert kinds["test"] >= 28, kinds
    run2 = builds[1].invocation_id
    for snapshot in ("cdc_check_snapshot", "cdc_timestamp_snapshot"):
        table = project.table(snapshot)
        counts = spark.sql(
            f"""
            select
                count_if(audit_update_process_id = '{run2}') as closed,
                count_if(audit_insert_process_id = '{run2}') as inserted,
                count_if(audit_update_process_id is null) as open_versions
            from {table}
            """
        ).first()
        # closed: 100 deleted + 200 updated; inserted: 200 updated + 100 new; open: 500 keys.
        assert tuple(counts) == (300, 300, 500), (snapshot, counts)
