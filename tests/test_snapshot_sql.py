"""The MERGE our override renders, for Iceberg and for Delta tables, and bad metadata config."""

from __future__ import annotations

import pytest

from python_helpers.runtime.dbt_invoke import DbtStepError
from python_helpers.tooling.scratch import ScratchProject
from tests.snapshot_helpers import compiled_code, day, history, write_snapshot

RENDER_MERGE = """
{% macro render_merge(is_iceberg) %}
    {% set target = api.Relation.create(schema=target.schema, identifier='snap', type='table') %}
    {% set target = target.incorporate(is_iceberg=is_iceberg, is_delta=not is_iceberg) %}
    {% set source = api.Relation.create(
        schema=target.schema, identifier='snap__dbt_tmp', type='view') %}
    {% set sql = snapshot_merge_sql(target=target, source=source, insert_cols=[]) %}
    {% do log('MERGE>>>' ~ sql ~ '<<<MERGE', info=true) %}
{% endmacro %}
"""


def _render_merge(project: ScratchProject, is_iceberg: bool) -> str:
    project.write("macros/render_merge.sql", RENDER_MERGE)
    args = "{is_iceberg: true}" if is_iceberg else "{is_iceberg: false}"
    project.dbt("run-operation", "render_merge", "--args", args)
    log = (project.root / "logs" / "dbt.log").read_text()
    return log.rsplit("MERGE>>>", 1)[1].split("<<<MERGE", 1)[0].strip().rstrip(";")


def _staging_view(project: ScratchProject, qualified: bool) -> str:
    """A staging view with one 'update' row closing id 1, the way dbt's staging builds it."""
    name = f"{project.schema}.snap__dbt_tmp" if qualified else "snap__dbt_tmp"
    kind = "view" if qualified else "temporary view"
    project.spark.sql(
        f"""
        create or replace {kind} {name} as
        select 'update' as dbt_change_type, s.id, s.name, s.amount,
            s.dbt_updated_at, s.dbt_valid_from,
            timestamp '2030-01-01 00:00:00 UTC' as dbt_valid_to, s.dbt_scd_id,
            cast(null as string) as audit_insert_process_id,
            'closing-run' as audit_update_process_id,
            cast(null as timestamp) as audit_insert_ts,
            timestamp '2030-01-01 00:00:01 UTC' as audit_update_ts,
            cast(null as timestamp) as effective_start_ts,
            timestamp '2030-01-01 00:00:00 UTC' as effective_end_ts
        from {project.table("snap")} as s where s.id = 1
        """
    )
    return name


@pytest.mark.parametrize("is_iceberg", [True, False], ids=["iceberg", "delta"])
def test_merge_sql_runs_for_both_staging_forms(
    dbt_project: ScratchProject, is_iceberg: bool
) -> None:
    """dbt-spark creates the staging view without schema for Iceberg, with it otherwise.

    Delta cannot be installed here; the Delta form (schema-qualified view, same MERGE grammar,
    Delta accepts `update set` of named columns and `insert *`) is executed against an Iceberg
    table, which exercises the same Spark SQL.
    """
    write_snapshot(dbt_project, "snap", "unique_key='id', strategy='check', check_cols='all'")
    day(dbt_project, "id,name,amount", ["1,a,10", "2,b,20"])
    merge = _render_merge(dbt_project, is_iceberg)
    view = f"{dbt_project.schema}.snap__dbt_tmp"
    if is_iceberg:
        assert "using snap__dbt_tmp as DBT_INTERNAL_SOURCE" in merge
    else:
        assert f"using {view} as DBT_INTERNAL_SOURCE" in merge
    for column in ("audit_update_process_id", "audit_update_ts", "effective_end_ts"):
        assert f"{column} = DBT_INTERNAL_SOURCE.{column}" in merge

    _staging_view(dbt_project, qualified=not is_iceberg)
    dbt_project.spark.sql(merge)
    rows = history(dbt_project, "snap")
    closed = next(r for r in rows if r["id"] == 1)
    assert closed["audit_update_process_id"] == "closing-run"
    assert str(closed["dbt_valid_to"]) == "2030-01-01 00:00:00"
    assert closed["effective_end_ts"] == closed["dbt_valid_to"]
    other = next(r for r in rows if r["id"] == 2)
    assert other["audit_update_process_id"] is None and other["dbt_valid_to"] is None


@pytest.mark.parametrize(
    ("vars_yaml", "message"),
    [
        ("{scd2_high_end_ts: 'end of time'}", "var 'scd2_high_end_ts' must look like"),
        # The shape of a moment, but none (Spark's INVALID_TYPED_LITERAL before).
        ("{scd2_high_end_ts: '9999-02-30 23:59:59'}", "var 'scd2_high_end_ts' must look like"),
        (
            "{scd2_audit_column_names: {insert_process_id: 'bad name'}}",
            "'bad name' (role insert_process_id) is not a plain column name",
        ),
        (
            "{scd2_audit_column_names: {insert_process_id: x, update_process_id: x}}",
            "gives two roles the same column name",
        ),
        ("{scd2_audit_column_names: {inserted_by: x}}", "has unknown roles ['inserted_by']"),
    ],
)
def test_bad_metadata_config_fails_clearly_and_writes_nothing(
    dbt_project: ScratchProject, vars_yaml: str, message: str
) -> None:
    write_snapshot(dbt_project, "snap", "unique_key='id', strategy='check', check_cols='all'")
    day(dbt_project, "id,name,amount", ["1,a,10"])
    before = history(dbt_project, "snap")
    dbt_project.write_seed("src", "id,name,amount", ["1,a,11"])
    dbt_project.dbt("seed", "--full-refresh")
    with pytest.raises(DbtStepError) as failure:
        dbt_project.dbt("snapshot", "--vars", vars_yaml)
    assert message in str(failure.value)
    assert history(dbt_project, "snap") == before


# case -> (the bad setting, what the failure must say)
BAD_SNAPSHOT_CONFIGS = {
    "hard_deletes": (
        "hard_deletes='Invalidate'",
        ["hard_deletes is 'Invalidate'", "not one of ignore, invalidate, new_record"],
    ),
    "meta_role": (
        "snapshot_meta_column_names={'dbt_valid_too': 'valid_to'}",
        [
            "snapshot_meta_column_names names dbt_valid_too",
            "its roles are dbt_valid_to, dbt_valid_from",
        ],
    ),
    "meta_twice": (
        "snapshot_meta_column_names={'dbt_valid_from': 'valid', 'dbt_valid_to': 'VALID'}",
        ["would have the name(s) valid twice"],
    ),
    "meta_audit": (
        "snapshot_meta_column_names={'dbt_scd_id': 'Audit_Insert_TS'}",
        ["would have the name(s) audit_insert_ts twice"],
    ),
    "current_text": (
        "dbt_valid_to_current=\"'9999-12-31'\"",
        ["dbt_valid_to_current ('9999-12-31') is of type string"],
    ),
    "current_moving": (
        "dbt_valid_to_current='current_timestamp()'",
        ["dbt_valid_to_current (current_timestamp()) gave", "it must not change"],
    ),
    "current_null": ("dbt_valid_to_current='null'", ["dbt_valid_to_current (null) is NULL"]),
    "current_postgres": (
        "dbt_valid_to_current=\"'9999-12-31'::timestamp\"",
        ["dbt_valid_to_current ('9999-12-31'::timestamp) casts with ::", "to_timestamp("],
    ),
    "strategy": (
        "strategy='Check'",
        ["strategy is 'Check', which is neither timestamp nor check", "snapshot_Check_strategy"],
    ),
    "key_commas": (
        "unique_key='id, name'",
        ["unique_key 'id, name' is one SQL expression", "unique_key: ['id', 'name']."],
    ),
    "key_blank": ("unique_key=['id', ' ']", ["unique_key has an empty entry: ['id', ' ']"]),
}


def _config_with(base: str, setting: str) -> str:
    """``base`` (``key=value, ...``) with ``setting`` added, or in place of base's own value."""
    key = setting.split("=", 1)[0]
    kept = [part for part in base.split(", ") if part.split("=", 1)[0] != key]
    return ", ".join([*kept, setting])


def test_bad_snapshot_config_fails_clearly_and_writes_nothing(
    dbt_project: ScratchProject,
) -> None:
    """Snapshot config values that stock dbt rejects without naming them (hard_deletes) or
    takes and gets wrong: a misspelt role of snapshot_meta_column_names was ignored, two added
    columns of one name failed in Spark, a text dbt_valid_to_current made dbt_valid_to a string
    column, a moving one (current_timestamp()) opened every key again on the next run, a
    strategy of no macro failed after the pre-hooks with dbt's "strategy macro 'Check' was not
    found in package 'None'", a unique_key of 'id, name' keyed the snapshot on name alone. Each
    fails, naming the snapshot and the value, on an existing table (left as it was) and on a
    first run (no table). One snapshot per case and step, all in one `dbt snapshot`."""
    base = "unique_key='id', strategy='check', check_cols='all'"
    for case in BAD_SNAPSHOT_CONFIGS:
        write_snapshot(dbt_project, f"old_{case}", base + ", hard_deletes='invalidate'")
    day(dbt_project, "id,name,amount", ["1,a,10", "2,b,20"])

    def state(case: str) -> tuple[list[dict], list]:
        table = dbt_project.table(f"old_{case}")
        commits = dbt_project.spark.sql(f"select * from {table}.snapshots").collect()
        return history(dbt_project, f"old_{case}"), commits

    before = {case: state(case) for case in BAD_SNAPSHOT_CONFIGS}
    for case, (config, _parts) in BAD_SNAPSHOT_CONFIGS.items():
        for name in (f"old_{case}", f"new_{case}"):
            write_snapshot(dbt_project, name, _config_with(base, config))
    dbt_project.write_seed("src", "id,name,amount", ["1,a,11", "3,c,30"])
    dbt_project.dbt("seed", "--full-refresh")
    step = dbt_project.dbt("snapshot", check=False)
    failed = {r.node.name: (str(r.status).lower(), str(r.message)) for r in step.result.results}
    assert len(failed) == 2 * len(BAD_SNAPSHOT_CONFIGS), failed
    for case, (_config, parts) in BAD_SNAPSHOT_CONFIGS.items():
        for name in (f"old_{case}", f"new_{case}"):
            status, message = failed[name]
            assert status == "error", (name, message)
            for part in [f"Snapshot '{name}': ", *parts, "Nothing was written."]:
                assert part in message, (name, message)
        assert state(case) == before[case], case
        assert not dbt_project.spark.catalog.tableExists(dbt_project.table(f"new_{case}"))


def test_plain_dates_are_utc_midnights(dbt_project: ScratchProject) -> None:
    """The forms 'YYYY-MM-DD' that the docs allow for the high-end var and for an as-of moment
    are that day's midnight in UTC, whatever the session's zone. They used to render as
    `timestamp '2024-01-02 UTC'`, which Spark rejects (INVALID_TYPED_LITERAL). ISO 8601 moments
    ('T', 'Z', offsets) were taken as SQL and failed with a syntax error. An open version is
    valid at the high end too (its dbt_valid_to is NULL)."""
    select = "select id, name, cast(changed as timestamp) as changed from {{ ref('src') }}"
    config = "unique_key='id', strategy='timestamp', updated_at='changed'"
    write_snapshot(dbt_project, "snap", config, select=select)
    header = "id,name,changed"
    dbt_project.write_seed("src", header, ["1,a,2024-01-01 00:00:00", "2,b,2024-01-01 00:00:00"])
    dbt_project.dbt("seed", "--full-refresh")
    high_end = ("--vars", "{scd2_high_end_ts: '9999-12-31'}")
    dbt_project.dbt("snapshot", *high_end)
    # Id 1 changes at 2024-01-02 00:00:00 UTC: version a ends there, a2 begins there.
    dbt_project.write_seed("src", header, ["1,a2,2024-01-02 00:00:00", "2,b,2024-01-01 00:00:00"])
    dbt_project.dbt("seed", "--full-refresh")
    dbt_project.dbt("snapshot", *high_end)
    ends = {
        r["effective_end_epoch"] for r in history(dbt_project, "snap") if r["dbt_valid_to"] is None
    }
    assert ends == {253402214400}  # 9999-12-31 00:00:00 UTC

    def as_of(moment: str) -> list[tuple[int, str]]:
        step = dbt_project.dbt(
            "compile", "--inline", f"{{{{ scd2_as_of(ref('snap'), '{moment}') }}}}"
        )
        sql = compiled_code(step)
        return sorted((r["id"], r["name"]) for r in dbt_project.spark.sql(sql).collect())

    before, after = [(1, "a"), (2, "b")], [(1, "a2"), (2, "b")]
    spark = dbt_project.spark
    try:
        spark.conf.set("spark.sql.session.timeZone", "Asia/Tokyo")
        assert as_of("2023-12-31") == []
        assert as_of("2024-01-01") == before
        assert as_of("2024-01-02") == after  # UTC midnight, not Tokyo's (15:00 UTC the day before)
        # ISO 8601: a 'T', minutes without seconds, 'Z' or an offset (else UTC).
        assert as_of("2024-01-01T23:59") == before
        assert as_of("2024-01-02T00:00:00Z") == after
        assert as_of("2024-01-02T01:00:00+02:00") == before  # 2024-01-01 23:00 UTC
        assert as_of("2024-01-01 23:30:00.5-0100") == after  # 2024-01-02 00:30:00.5 UTC
        # The open versions, at and beyond the high end's day.
        assert as_of("9999-12-30") == after
        assert as_of("9999-12-31") == after
        assert as_of("9999-12-31T12:00:00Z") == after
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")
