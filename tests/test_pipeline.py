"""The day-by-day pipeline (make demo), in-process on real dbt, Spark and Iceberg."""

from __future__ import annotations

import importlib
import signal
from dataclasses import replace

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import SparkSession

from python_helpers.pipeline.reconcile import History, audit_column_names, reconcile
from python_helpers.pipeline.run import (
    PipelineError,
    PipelineOptions,
    StepTimer,
    _thrift_engine,
    build_parser,
    local_engine_conf,
    main,
    report,
    run_days,
)
from python_helpers.runtime.dbt_invoke import DbtStepError
from python_helpers.tooling.scratch import ScratchProject


@pytest.fixture(scope="module")
def pipeline_run(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory):
    """Three days of 300 keys (3 keys, 4 non-keys), the project's own snapshots and models,
    and a snapshot of something else, which the pipeline builds but does not reconcile."""
    root = tmp_path_factory.mktemp("pipeline") / "project"
    project = ScratchProject(root, "pipeline_it", spark, include=("models", "snapshots"))
    project.write(
        "snapshots/other_snapshot.sql",
        """
        {% snapshot other_snapshot %}
        {{ config(unique_key='id', strategy='check', check_cols='all') }}
        select 1 as id, 'x' as v
        {% endsnapshot %}
        """,
    )
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
        assert (r.state_rows, r.state_differing) == (300, 0)
        if r.day == 1:
            assert r.observed == {"I": 300}
        else:
            # of 300 previous keys: 30 deleted, 180 updated, 90 unchanged; 30 new keys
            assert r.observed == {"D": 30, "U": 180, "N": 90, "I": 30}
            assert r.keys_compared == 330
        # Versions: 300 on day 1, then 30 new and 180 updated a day; closed: 180 + 30 a day.
        versions = {1: (300, 0), 2: (510, 210), 3: (720, 420)}[r.day]
        assert (r.history.versions, r.history.closed) == versions
        assert r.history == r.expected_history
        # Day 1 opened 300 versions; later days open 210 (30 new, 180 updated) and close 210,
        # each dated as the snapshot dates it (of the timestamp snapshot's ends, the 30
        # deletes': an update's end is the next version's start, scd2_contiguous_validity's).
        checked = 240 if r.snapshot == "cdc_timestamp_snapshot" else 420
        assert (r.dated_rows, r.misdated) == ({1: 300}.get(r.day, checked), 0)
        # The versions earlier runs left are as they left them (none before day 1).
        assert (r.kept_before is None) == (r.day == 1)
        assert r.kept_ok and r.kept.versions == {1: 0, 2: 300, 3: 510}[r.day]
        assert (r.after.versions, r.after.closed_versions) == versions
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


def _reconcile_day3_of(
    project: ScratchProject, results, copy: str, dbt_names: dict[str, str] | None = None
):
    """Day 3's reconciliation of the check snapshot, run again on ``copy`` (an altered copy of
    the snapshot), with what the manifests and day 2's run left as its reference."""
    day2, day3 = (
        next(r for r in results if r.snapshot == "cdc_check_snapshot" and r.day == day)
        for day in (2, 3)
    )

    def execute(sql: str) -> list[tuple]:
        return [tuple(row) for row in project.spark.sql(sql).collect()]

    return reconcile(
        execute,
        project.schema,
        copy,
        3,
        day3.run_id,
        ["key_1", "key_2", "key_3"],
        audit_column_names(project.root, ["--target", "local"]),
        columns=["key_1", "key_2", "key_3", "col_1", "col_2", "col_3", "col_4", "updated_at"],
        history_before=day2.expected_history,
        fingerprint_before=day2.after,
        dbt_names=dbt_names,
    )


def test_reconciliation_catches_misdated_versions(pipeline_run) -> None:
    """The counts, the state and the fingerprints compare no validity a run wrote: copies of
    day 3's snapshots whose new versions start a day late (timestamp: not at the source's
    updated_at) or whose closed version ends a second late (check: not at the run's time)
    or whose deleted versions end a second late (timestamp too: not at the run's time) now
    fail the reconciliation, and the copies as they are pass it."""
    project, _options, results = pipeline_run
    spark = project.spark
    audit = audit_column_names(project.root, ["--target", "local"])

    def execute(sql: str) -> list[tuple]:
        return [tuple(row) for row in spark.sql(sql).collect()]

    def day3(snapshot: str, alter: str, updated_at: str | None):
        run_id = next(r for r in results if r.snapshot == snapshot and r.day == 3).run_id
        copy = f"{snapshot}_misdated"
        spark.sql(
            f"create table {project.table(copy)} using iceberg as "
            f"select * from {project.table(snapshot)}"
        )
        keys = ["key_1", "key_2", "key_3"]

        def dating() -> tuple[int, int]:
            r = reconcile(
                execute, project.schema, copy, 3, run_id, keys, audit, updated_at=updated_at
            )
            return r.dated_rows, r.misdated

        before = dating()
        spark.sql(alter.format(table=project.table(copy), run=run_id, **audit))
        return [before, dating()]

    later = "update {table} set dbt_valid_from = dbt_valid_from + interval 1 day"
    assert day3(
        "cdc_timestamp_snapshot", later + " where {insert_process_id} = '{run}'", "updated_at"
    ) == [(240, 0), (240, 210)]
    # Every end the run wrote a second late: the 30 deletes' are misdated (the run's time),
    # the 180 updates' are scd2_contiguous_validity's (the next version's start).
    spark.sql(f"drop table {project.table('cdc_timestamp_snapshot_misdated')}")
    ends = (
        "update {table} set dbt_valid_to = dbt_valid_to + interval 1 second "
        "where {update_process_id} = '{run}'"
    )
    assert day3("cdc_timestamp_snapshot", ends, "updated_at") == [(240, 0), (240, 30)]
    one = (
        "update {table} set dbt_valid_to = dbt_valid_to + interval 1 second "
        "where {update_process_id} = '{run}' and key_1 = "
        "(select min(key_1) from {table} where {update_process_id} = '{run}')"
    )
    assert day3("cdc_check_snapshot", one, None) == [(420, 0), (420, 1)]


def test_reconciliation_reads_dbt_columns_by_the_snapshots_names(pipeline_run) -> None:
    """A project that renames dbt's columns (snapshot_meta_column_names) built its snapshots
    under those names, and the reconciliation asked for dbt_valid_from and the like: Spark's
    UNRESOLVED_COLUMN, a traceback after a successful build. Day 3 of the check snapshot,
    copied with dbt's columns renamed, reconciles under the names given, as the unrenamed
    table did: 420 versions dated, none misdated, the versions before the run unchanged."""
    project, _options, results = pipeline_run
    renamed = {
        "dbt_valid_from": "valid_from",
        "dbt_valid_to": "valid_to",
        "dbt_scd_id": "version_id",
        "dbt_updated_at": "changed_at",
        "dbt_is_deleted": "is_deleted",
    }
    copy = "cdc_check_snapshot_renamed"
    project.spark.sql(
        f"create table {project.table(copy)} using iceberg as "
        f"select * from {project.table('cdc_check_snapshot')}"
    )
    for role, name in renamed.items():
        if role != "dbt_is_deleted":  # hard_deletes='invalidate': no such column
            project.spark.sql(f"alter table {project.table(copy)} rename column {role} to {name}")
    with pytest.raises(AnalysisException, match="UNRESOLVED_COLUMN"):
        _reconcile_day3_of(project, results, copy)
    result = _reconcile_day3_of(project, results, copy, dbt_names=renamed)
    assert (result.dated_rows, result.misdated) == (420, 0)
    assert result.kept_ok and result.all_ok, result


def test_reconciliation_catches_a_history_altered_outside_the_runs(pipeline_run) -> None:
    """A copy of the check snapshot after day 3, altered as no run would: two open versions'
    values changed, day 2's closed versions removed. The per-run counts still match; the
    state (every column of the open versions against the source) and the number of versions
    do not."""
    project, _options, results = pipeline_run
    spark = project.spark
    day2 = next(r for r in results if r.snapshot == "cdc_check_snapshot" and r.day == 2)
    audit = audit_column_names(project.root, ["--target", "local"])
    snapshot, copy = project.table("cdc_check_snapshot"), "cdc_check_snapshot_altered"
    spark.sql(f"create table {project.table(copy)} using iceberg as select * from {snapshot}")
    spark.sql(
        f"""
        update {project.table(copy)} set col_1 = col_1 + 1
        where {audit["update_process_id"]} is null and key_1 in (
            select key_1 from {snapshot} where {audit["update_process_id"]} is null
            order by key_1 limit 2
        )
        """
    )
    spark.sql(
        f"delete from {project.table(copy)} where {audit['update_process_id']} = '{day2.run_id}'"
    )
    altered = _reconcile_day3_of(project, results, copy)
    assert altered.keys_differing == 0 and all(altered.ok(c) for c in "UNID")
    # Two open versions differ from their source rows: each counts once on either side.
    assert (altered.state_rows, altered.state_differing) == (300, 4)
    # Day 2 closed 210 versions (180 updated, 30 deleted); they are gone.
    assert altered.history == History(720 - 210, 420 - 210)
    assert altered.expected_history == History(720, 420)
    assert not altered.kept_ok
    assert not altered.all_ok


def test_reconciliation_catches_closed_versions_altered_outside_the_runs(pipeline_run) -> None:
    """Changes the counts and the open versions cannot show: a closed version's value, a
    closed version's end moved, one closed version twice and another gone. Each copy of the
    check snapshot after day 3 agrees with the manifests in every count; the versions that
    were there before day 3's run differ from how day 2's run left them."""
    project, _options, results = pipeline_run
    spark = project.spark
    day2 = next(r for r in results if r.snapshot == "cdc_check_snapshot" and r.day == 2)
    closer = audit_column_names(project.root, ["--target", "local"])["update_process_id"]
    snapshot = project.table("cdc_check_snapshot")
    one_closed = (
        f"select dbt_scd_id from {snapshot} where {closer} = '{day2.run_id}' "
        "order by dbt_scd_id limit 1"
    )
    two_closed = one_closed.replace("limit 1", "limit 2")
    alterations = {
        "value": f"update {{t}} set col_1 = col_1 + 1 where dbt_scd_id in ({one_closed})",
        "end": f"update {{t}} set dbt_valid_to = dbt_valid_to + interval 1 day "
        f"where dbt_scd_id in ({one_closed})",
        "twice": f"insert into {{t}} select * from {snapshot} where dbt_scd_id in ({one_closed})",
    }

    for name, alteration in alterations.items():
        copy = f"cdc_check_snapshot_{name}"
        table = project.table(copy)
        spark.sql(f"create table {table} using iceberg as select * from {snapshot}")
        spark.sql(alteration.format(t=table))
        if name == "twice":  # and another closed version gone: the counts agree again
            spark.sql(
                f"delete from {table} where dbt_scd_id in ({two_closed}) "
                f"and dbt_scd_id not in ({one_closed})"
            )
        altered = _reconcile_day3_of(project, results, copy)
        assert altered.keys_differing == 0 and all(altered.ok(c) for c in "UNID"), name
        assert altered.state_differing == 0, name
        assert altered.history == altered.expected_history == History(720, 420), name
        assert not altered.kept_ok and not altered.all_ok, name


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--pct-del", "1.5"], "--pct-del"),
        (["--pct-del", "0.3"], "sum"),
        (["--incr-recs", "10", "--init-recs", "100"], "so --incr-recs must be at least 80"),
        (["--days", "4000"], "--days: must be at most 3660"),
        (["--schema", "bad-name"], "--schema must be a plain identifier"),
        (["--target", "thrift", "--format", "table"], "--format table"),
        (["--events", "flat", "--format", "table"], "--format is the seed pipeline's"),
        (["--events", "flat", "--pct-noop", "2"], "error: --pct-noop: must be"),
        (["--pct-duplicate", "0.1"], "--pct-duplicate: applies to change events only"),
        (
            ["--pct-del", "0.5", "--pct-upd", "0.6", "--pct-unchanged", "0"],
            "--pct-del + --pct-upd + --pct-unchanged: the shares must sum to 1",
        ),
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


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--days", "0"], "argument --days: must be a whole number >= 1, got 0"),
        (["--days", "abc"], "argument --days: must be a whole number >= 1, got abc"),
        (["--keys", "0"], "argument --keys: must be a whole number >= 1, got 0"),
        (["--format", "parquet"], "argument --format: invalid choice: 'parquet'"),
    ],
)
def test_bad_option_values_are_refused_by_the_parser(argv: list[str], message: str, capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_keep_warehouse_refuses_a_schema_with_tables(pipeline_run) -> None:
    """--keep-warehouse on a schema that holds a history: the run would replay day 1 over it
    and reconcile against a fresh start (a false MISMATCH); it stops first, writing nothing."""
    project, options, _results = pipeline_run
    spark = project.spark
    tables = {r.tableName for r in spark.sql(f"show tables in {project.schema}").collect()}
    commits = spark.sql(f"select count(*) from {project.table('cdc_check_snapshot')}.snapshots")
    before = commits.first()[0]
    with pytest.raises(PipelineError, match="--keep-warehouse: schema pipeline_it already holds"):
        run_days(replace(options, fresh=False), StepTimer())
    assert {r.tableName for r in spark.sql(f"show tables in {project.schema}").collect()} == tables
    assert commits.first()[0] == before


@pytest.mark.parametrize(
    ("guard_share", "shares", "day_2"),
    [
        # (--pct-del, --pct-upd, --pct-unchanged). The project's own share, 0.3, read through
        # dbt as the default 0.5 is: deleting 4 of 10 keys is above it. Day 2 deletes 4,
        # updates 3, keeps 3 and adds 4 (10 rows a day).
        (0.3, (0.4, 0.3, 0.3), {"D": 4, "U": 3, "N": 3, "I": 4}),
    ],
)
def test_deletes_from_the_guard_share_pass_the_delete_guard(
    spark: SparkSession,
    tmp_path,
    guard_share: float | None,
    shares: tuple[float, float, float],
    day_2: dict[str, int],
) -> None:
    """--pct-del from the snapshots' mass-delete guard's share up (var scd2_max_delete_share,
    default 0.5, or the project's own): the day's deletes are the generator's truth, so the
    pipeline lifts the guard (it stopped every such day). Then a second run on the same
    schema starts it afresh."""
    root = tmp_path / "project"
    project = ScratchProject(root, "pipeline_deletes", spark, include=("models", "snapshots"))
    if guard_share is not None:
        with (root / "dbt_project.yml").open("a") as config:
            config.write(f"\nvars:\n  scd2_max_delete_share: {guard_share}\n")
    options = PipelineOptions(
        no_init_recs=10,
        no_incr_recs=10,
        no_keys=1,
        no_nonkeys=1,
        pct_del=shares[0],
        pct_upd=shares[1],
        pct_unchanged=shares[2],
        days=2,
        schema=project.schema,
        project_dir=root,
        output_format="table",
    )
    results = run_days(options, StepTimer())
    assert sorted((r.snapshot, r.day, r.observed, r.all_ok) for r in results if r.day == 2) == [
        ("cdc_check_snapshot", 2, day_2, True),
        ("cdc_timestamp_snapshot", 2, day_2, True),
    ]

    # A second run on the same schema starts it afresh. Where the metastore is kept between
    # runs (a live session, a Thrift server, the cluster's metastore), a run empties its schema
    # first: the analyst views of the run before it as well as its tables (Spark refuses `drop
    # table` on a view, and the second run failed so). One day of 10 keys: both snapshots hold
    # 10 versions, all inserted by that run.
    views = spark.sql(f"show views in {project.schema}").collect()
    assert "cdc_check_current" in {v.viewName for v in views if not v.isTemporary}
    again = run_days(replace(options, days=1), StepTimer())
    assert sorted((r.snapshot, r.observed, r.history.versions, r.all_ok) for r in again) == [
        ("cdc_check_snapshot", {"I": 10}, 10, True),
        ("cdc_timestamp_snapshot", {"I": 10}, 10, True),
    ]
    assert again[0].run_id not in {r.run_id for r in results}


def test_a_day_that_reconciles_no_snapshot_fails(
    spark: SparkSession, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """dbt reads DBT_RESOURCE_TYPES from the environment: set to seeds, the day's build ran
    no snapshot, and the report over no reconciliation said every one was OK. The day now
    fails, saying why."""
    root = tmp_path / "project"
    project = ScratchProject(root, "pipeline_none", spark, include=("models", "snapshots"))
    monkeypatch.setenv("DBT_RESOURCE_TYPES", "seed")
    options = PipelineOptions(
        no_init_recs=10,
        no_incr_recs=10,
        no_keys=1,
        no_nonkeys=1,
        days=1,
        schema=project.schema,
        project_dir=root,
    )
    with pytest.raises(PipelineError, match="day 1: dbt build ran no snapshot of cdc_source"):
        run_days(options, StepTimer())


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


def test_the_target_defaults_to_dbt_target(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """--target defaults to $DBT_TARGET, as dbt's own target does (profiles.yml), else local;
    a $DBT_TARGET the pipeline cannot run on is an argument error naming it."""
    monkeypatch.delenv("DBT_TARGET", raising=False)
    assert build_parser().parse_args([]).target == "local"
    monkeypatch.setenv("DBT_TARGET", "thrift")
    assert build_parser().parse_args([]).target == "thrift"
    assert build_parser().parse_args(["--target", "cluster"]).target == "cluster"
    monkeypatch.setenv("DBT_TARGET", "bogus")
    with pytest.raises(SystemExit) as exit_info:
        main([])
    assert exit_info.value.code == 2
    assert "$DBT_TARGET is 'bogus'; choose from local, thrift, cluster" in capsys.readouterr().err


def test_an_empty_dbt_schema_is_as_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    """DBT_SCHEMA= (set, empty) gives the default schema, as the generator takes it; it was
    refused as --schema '' though no --schema was given."""
    monkeypatch.setenv("DBT_SCHEMA", "")
    assert build_parser().parse_args([]).schema == "scd2"
    monkeypatch.setenv("DBT_SCHEMA", "other")
    assert build_parser().parse_args([]).schema == "other"


def test_a_thrift_port_that_is_no_number_is_an_argument_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SPARK_THRIFT_PORT as the Thrift CLI reads it: a clear error (exit 2 from main), not a
    traceback, before any connection is tried."""
    monkeypatch.setenv("SPARK_THRIFT_PORT", "abc")
    with pytest.raises(PipelineError, match="SPARK_THRIFT_PORT: not a port number: 'abc'"):
        _thrift_engine(PipelineOptions(target="thrift"))


def test_small_days_run_on_a_jvm_that_compiles_with_c1_alone() -> None:
    """The local engine's driver JVM compiles with C1 alone on days of up to 100,000 rows
    (the demo's defaults), keeping the lakehouse's own JVM options; larger days keep the JVM's
    defaults, where C2's faster code repays its compiling."""
    small = local_engine_conf(PipelineOptions())
    options = small["spark.driver.extraJavaOptions"].split()
    assert options[-2:] == ["-XX:TieredStopAtLevel=1", "-XX:ReservedCodeCacheSize=256m"]
    assert any(o.startswith("-Dderby.system.home=") for o in options)
    assert "-Duser.timezone=UTC" in options
    at_limit = PipelineOptions(no_init_recs=100_000, no_incr_recs=100_000)
    assert local_engine_conf(at_limit) == small
    assert local_engine_conf(PipelineOptions(no_init_recs=100_001)) == {}
    assert local_engine_conf(PipelineOptions(no_incr_recs=1_000_000)) == {}


def test_an_interrupt_exits_130_with_one_line(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """Ctrl-C exits 130 (128 + SIGINT, as a shell says) with one line, where it exited 1 as a
    failed dbt step, or with py4j's traceback: inside a call into Spark's JVM, Ctrl-C breaks
    py4j's connection, and that error, not the interrupt, is what dbt's runner returns. A
    failed step without an interrupt still exits 1. (The steps themselves stand in here: the
    whole pipeline, interrupted at 8, 22 and 30 s, was checked by hand.)"""
    module = importlib.import_module("python_helpers.pipeline.run")

    def interrupted(options: PipelineOptions) -> int:
        raise KeyboardInterrupt

    def interrupted_in_the_jvm(options: PipelineOptions) -> int:
        try:
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt:
            raise DbtStepError("dbt build failed:\n  Py4JError('calling o65.sc')") from None
        return 0

    def failed(options: PipelineOptions) -> int:
        raise DbtStepError("dbt build failed:\n  model.x: error: boom")

    # Python's own handler, which pytest's workers may have replaced.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        for step in (interrupted, interrupted_in_the_jvm):
            monkeypatch.setattr(module, "run", step)
            try:
                status = main(["--days", "1"])
            except KeyboardInterrupt:
                pytest.fail(f"{step.__name__}: main let the interrupt through")
            assert status == 130
            err = capsys.readouterr().err
            assert err.strip().startswith("interrupted: the run stopped"), err
            assert "Py4JError" not in err
            assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        monkeypatch.setattr(module, "run", failed)
        assert main(["--days", "1"]) == 1
        assert "model.x: error: boom" in capsys.readouterr().err
    finally:
        signal.signal(signal.SIGINT, previous)
