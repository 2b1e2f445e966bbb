"""Reconcile a snapshot run against the generator's manifest, key by key.

What a run did to each key is read back from the snapshot's operational metadata alone:
a key whose version the run closed *and* re-inserted was updated, one it only closed was
deleted, one it only inserted is new, and an open version the run did not touch is unchanged.
That is compared with the manifest (the generator's truth) per key, not only in totals.
Then what the history holds: its open versions against the day's source rows, every column;
its number of versions and of closed versions against what the manifests imply; and the
versions earlier runs left, closed ones included, against a fingerprint of them taken after
the previous run (:class:`Fingerprint`): so that a version lost, added or altered outside the
runs is found too.

The comparison is one SQL query, so it runs wherever the tables are: through the in-process
SparkSession (``local`` target) or through a Spark Thrift Server (``thrift`` target).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dbt.artifacts.resources.v1.snapshot import SnapshotConfig

from python_helpers.generator.spec import CHANGES_TABLE, SOURCE_TABLE
from python_helpers.runtime.dbt_invoke import run_dbt
from python_helpers.runtime.lakehouse import PROJECT_ROOT

# Manifest change type -> the classic hash-based CDC letter.
CODES = {"updated": "U", "unchanged": "N", "inserted": "I", "deleted": "D"}
Executor = Callable[[str], Sequence[Sequence[Any]]]

# One dbt query returns the snapshots' settings as the package resolves them (its defaults,
# the project's vars and the run's --vars): the audit column names (macro
# scd2_audit_column_names) and the mass-delete guard's share (macro scd2_max_delete_share).
_SETTINGS_SQL = (
    "select '{{ tojson({"
    "'audit': scd2_audit.scd2_audit_column_names(), "
    "'max_delete_share': scd2_audit.scd2_max_delete_share()"
    "}) }}' as settings"
)


@dataclass(frozen=True)
class SnapshotSettings:
    audit: dict[str, str]  # operational metadata column names, role -> name
    max_delete_share: float  # the largest share of open versions a run may close as deleted


def snapshot_settings(
    project_dir: Path = PROJECT_ROOT, dbt_args: Sequence[str] = ()
) -> SnapshotSettings:
    """The snapshots' settings, read through dbt from their one definition, the package's
    macros; ``dbt_args`` as for the run (``--target``, ``--vars``)."""
    settings = dbt_show_json(_SETTINGS_SQL, project_dir, dbt_args)
    return SnapshotSettings(settings["audit"], float(settings["max_delete_share"]))


def audit_column_names(
    project_dir: Path = PROJECT_ROOT, dbt_args: Sequence[str] = ()
) -> dict[str, str]:
    """The operational metadata column names (role -> name): :func:`snapshot_settings`."""
    return snapshot_settings(project_dir, dbt_args).audit


def dbt_show_json(sql: str, project_dir: Path, dbt_args: Sequence[str]) -> Any:
    """The JSON value a one-row, one-column ``dbt show --inline`` query returns."""
    step = run_dbt(
        # --log-level none: --quiet still prints show's preview table.
        ["show", "--log-level", "none", "--inline", sql, "--limit", "1", *dbt_args],
        project_dir=project_dir,
    )
    return json.loads(step.result.results[0].agate_table.rows[0][0])


def reconciliation_sql(
    snapshot_table: str,
    manifest_table: str,
    keys: list[str],
    run_id: str,
    audit: dict[str, str],
) -> str:
    """(observed change, expected change, keys) for every combination seen in one run."""
    key_list = ", ".join(keys)
    on = " and ".join(f"i.{k} = c.{k}" for k in keys)
    on_touched = " and ".join(f"t.{k} = v.{k}" for k in keys)
    on_expected = " and ".join(f"o.{k} = e.{k}" for k in keys)
    coalesced = ", ".join(f"coalesce(i.{k}, c.{k}) as {k}" for k in keys)
    run = run_id.replace("'", "")
    return f"""
        with versions as (
            select * from {snapshot_table}
        ),

        inserted as (
            select distinct {key_list} from versions
            where {audit["insert_process_id"]} = '{run}'
        ),

        closed as (
            select distinct {key_list} from versions
            where {audit["update_process_id"]} = '{run}'
        ),

        touched as (
            select
                {coalesced},
                case
                    when i.{keys[0]} is not null and c.{keys[0]} is not null then 'updated'
                    when i.{keys[0]} is not null then 'inserted'
                    else 'deleted'
                end as change_type
            from inserted as i
            full outer join closed as c on {on}
        ),

        untouched as (
            select v.{", v.".join(keys)}, 'unchanged' as change_type
            from versions as v
            left anti join touched as t on {on_touched}
            where v.{audit["update_process_id"]} is null
                and v.{audit["insert_process_id"]} != '{run}'
        ),

        observed as (
            select * from touched
            union all
            select * from untouched
        ),

        final as (
            select o.change_type as observed, e.change_type as expected, count(*) as keys
            from observed as o
            full outer join {manifest_table} as e on {on_expected}
            group by o.change_type, e.change_type
        )

        select * from final
    """


def state_sql(
    snapshot_table: str, source_table: str, columns: list[str], audit: dict[str, str]
) -> str:
    """(source rows, open versions not in the source, source rows not among the open
    versions): the snapshot's current state against the day's source, every column compared
    (``except all``: duplicates count)."""
    column_list = ", ".join(columns)
    return f"""
        with open_versions as (
            select {column_list} from {snapshot_table}
            where {audit["update_process_id"]} is null
        ),

        source_rows as (
            select {column_list} from {source_table}
        )

        select
            (select count(*) from source_rows) as source_count,
            (select count(*) from (
                select * from open_versions except all select * from source_rows
            )) as extra,
            (select count(*) from (
                select * from source_rows except all select * from open_versions
            )) as missing
    """


def dating_sql(
    snapshot_table: str,
    run_id: str,
    audit: dict[str, str],
    updated_at: str | None,
    deletion_records: bool = False,
    keys: Sequence[str] = (),
    dbt_names: Mapping[str, str] | None = None,
) -> str:
    """(versions of the run checked, those of them dated otherwise than the snapshot dates
    them). With ``updated_at`` (validity following the source's updated_at: the timestamp
    strategy, or check with updated_at), each version the run opened starts at its row's
    updated_at, which the generator wrote (``deletion_records``: hard_deletes='new_record',
    whose deletion records start at the run's time, are left out), and each version of a key
    it closed without opening another (a delete; ``keys``, the key columns, tell) ends at the
    run's time, its audit update_ts, or at its own start where that is later (a version the
    source dated in the future; an update's end, the next version's start, is
    scd2_contiguous_validity's). Without it (check), each version the run opened starts, and
    each it closed ends, at the run's time, as its audit insert_ts and update_ts record it
    (one snapshot_get_time() in one query). The counts, the state and the fingerprints compare
    no validity the run wrote. ``dbt_names``: dbt's column names, role -> name, as the
    snapshot's config has them (:func:`dbt_column_names`)."""
    names = dbt_column_names(dbt_names)
    valid_from, valid_to = names["dbt_valid_from"], names["dbt_valid_to"]
    run = run_id.replace("'", "")
    inserted = f"{audit['insert_process_id']} <=> '{run}'"
    closed = f"{audit['update_process_id']} <=> '{run}'"
    if updated_at is not None:
        opened = inserted + (
            f" and {names['dbt_is_deleted']} <=> 'False'" if deletion_records else ""
        )
        deleted = f"{closed} and scd2_reopened is null"
        checked = f"({opened}) or ({deleted})"
        wrong = (
            f"({opened} and not ({valid_from} <=> cast({updated_at} as timestamp))) "
            f"or ({deleted} and not "
            f"({valid_to} <=> greatest({audit['update_ts']}, {valid_from})))"
        )
        key_list = ", ".join(keys)
        matched = " and ".join(f"v.{key} <=> o.{key}" for key in keys)
        return f"""
            with reopened as (
                select distinct {key_list}, true as scd2_reopened
                from {snapshot_table}
                where {opened}
            ),

            versions as (
                select v.*, o.scd2_reopened
                from {snapshot_table} as v
                left join reopened as o on {matched}
            )

            select count(*), count_if({wrong})
            from versions
            where {checked}
        """
    else:
        checked = f"{inserted} or {closed}"
        wrong = (
            f"({inserted} and not ({valid_from} <=> {audit['insert_ts']})) "
            f"or ({closed} and not ({valid_to} <=> {audit['update_ts']}))"
        )
    return f"""
        select count(*), count_if({wrong})
        from {snapshot_table}
        where {checked}
    """


def history_sql(snapshot_table: str, audit: dict[str, str]) -> str:
    """(versions, closed versions) of the whole history."""
    return f"""
        select count(*), count({audit["update_process_id"]}) from {snapshot_table}
    """


@dataclass(frozen=True)
class History:
    """Versions in a snapshot and how many are closed: each day's inserted and updated keys
    add a version, each updated and deleted key closes one."""

    versions: int = 0
    closed: int = 0

    def after(self, expected: dict[str, int]) -> History:
        """The history after a run that does what ``expected`` (code -> keys) says."""
        return History(
            self.versions + expected.get("I", 0) + expected.get("U", 0),
            self.closed + expected.get("U", 0) + expected.get("D", 0),
        )


# Of dbt's own columns, a run writes dbt_valid_to, and of the audit columns those of
# _CLOSING_ROLES, only when it closes a version; it leaves the others as they are.
_DBT_CLOSING = ("dbt_valid_to",)
_DBT_KEPT = ("dbt_scd_id", "dbt_updated_at", "dbt_valid_from")
_CLOSING_ROLES = ("update_process_id", "update_ts", "effective_end_ts")


def dbt_column_names(names: Mapping[str, str] | None = None) -> dict[str, str]:
    """dbt's snapshot columns, role -> name: ``names`` (a snapshot node's
    ``config.snapshot_table_column_names``, which its ``snapshot_meta_column_names`` renames),
    else dbt's defaults, as dbt itself defines them."""
    return dict(names or SnapshotConfig().snapshot_table_column_names)


@dataclass(frozen=True)
class Fingerprint:
    """Versions as an order-independent sum of row hashes: ``kept`` over every column a run
    leaves as it is (all but dbt_valid_to and the closing metadata) of ``versions`` versions,
    ``closed`` over every column of the ``closed_versions`` closed ones. A run adds versions
    and closes open ones, nothing else; so the versions that were there before a run, seen
    after it, must give the fingerprint they gave after the run before: a value changed, a
    version lost, added twice or moved in time, in the closed history too, changes it."""

    versions: int = 0
    kept: int = 0
    closed_versions: int = 0
    closed: int = 0


def _row_hash(columns: Sequence[str]) -> str:
    """A 64-bit hash of a row's ``columns``, as a decimal to sum: xxhash64 of the values and
    of which are null (xxhash64 skips a null, so that (null, 'a') and ('a', null) agreed)."""
    nulls = ", ".join(f"cast(isnull({c}) as int)" for c in columns)
    return f"cast(xxhash64({', '.join(columns)}, concat({nulls})) as decimal(38, 0))"


def fingerprint_sql(
    snapshot_table: str,
    columns: Sequence[str],
    audit: dict[str, str],
    run_id: str,
    dbt_kept: Sequence[str] = _DBT_KEPT,
    dbt_closing: Sequence[str] = _DBT_CLOSING,
) -> str:
    """One row: the :class:`Fingerprint` of the versions of ``snapshot_table`` that were there
    before run ``run_id`` (not inserted by it; closed ones: closed by another run), then that
    of every version, for the next run to compare with (``columns``: the source's;
    ``dbt_kept``, ``dbt_closing``: the other columns a run leaves as they are, and those it
    writes when it closes a version, besides the audit columns)."""
    run = run_id.replace("'", "")
    kept_columns = [*dbt_kept, *(v for k, v in audit.items() if k not in _CLOSING_ROLES)]
    kept = _row_hash([*columns, *kept_columns])
    closed = _row_hash([*columns, *dbt_kept, *dbt_closing, *audit.values()])
    return f"""
        with hashed as (
            select
                not ({audit["insert_process_id"]} <=> '{run}') as was_there,
                {audit["update_process_id"]} is not null as is_closed,
                not ({audit["update_process_id"]} <=> '{run}') as closed_before,
                {kept} as kept_hash,
                {closed} as closed_hash
            from {snapshot_table}
        )

        select
            count_if(was_there),
            coalesce(sum(if(was_there, kept_hash, 0)), 0),
            count_if(is_closed and closed_before),
            coalesce(sum(if(is_closed and closed_before, closed_hash, 0)), 0),
            count(*),
            coalesce(sum(kept_hash), 0),
            count_if(is_closed),
            coalesce(sum(if(is_closed, closed_hash, 0)), 0)
        from hashed
    """


@dataclass(frozen=True)
class Reconciliation:
    snapshot: str
    day: int
    run_id: str
    observed: dict[str, int]  # code -> versions/keys, from the snapshot's metadata
    expected: dict[str, int]  # code -> keys, from the manifest
    keys_compared: int
    keys_differing: int
    # The current state: the day's source rows, and rows differing from the open versions.
    state_rows: int = 0
    state_differing: int = 0
    # The versions of the run whose validity is checked, and those dated otherwise than the
    # snapshot dates them (dating_sql).
    dated_rows: int = 0
    misdated: int = 0
    # The whole history: as found in the table, and as the manifests so far imply.
    history: History = History()
    expected_history: History = History()
    # The versions there before the run, as found after it, and as the previous run left
    # them (None on a first run, or a run reconciled on its own); then all, for the next run.
    kept: Fingerprint = Fingerprint()
    kept_before: Fingerprint | None = None
    after: Fingerprint = Fingerprint()

    @property
    def kept_ok(self) -> bool:
        return self.kept_before is None or self.kept == self.kept_before

    def ok(self, code: str) -> bool:
        return self.observed.get(code, 0) == self.expected.get(code, 0)

    @property
    def all_ok(self) -> bool:
        return (
            self.keys_differing == 0
            and all(self.ok(code) for code in CODES.values())
            and self.state_differing == 0
            and self.misdated == 0
            and self.history == self.expected_history
            and self.kept_ok
        )


def reconcile(
    execute: Executor,
    schema: str,
    snapshot: str,
    day: int,
    run_id: str,
    keys: list[str],
    audit: dict[str, str],
    manifest: str = CHANGES_TABLE,
    columns: list[str] | None = None,
    source: str = SOURCE_TABLE,
    history_before: History = History(),
    fingerprint_before: Fingerprint | None = None,
    updated_at: str | None = None,
    deletion_records: bool = False,
    dbt_names: Mapping[str, str] | None = None,
) -> Reconciliation:
    """Compare one run of ``snapshot`` with the manifest, in counts and key by key; then the
    snapshot's open versions with the day's ``source`` (``columns``: the source's, every one
    compared; the keys alone when not given), and its number of versions and closed versions
    with what the manifests imply (``history_before``: as they implied it before this run);
    and the versions that were there before the run with ``fingerprint_before`` (the ``after``
    of the previous run's reconciliation): none of them changed, went or came twice; and the
    validity of the versions the run opened and closed (``updated_at``: the snapshot's, where
    its validity follows it; ``deletion_records``: hard_deletes='new_record'; see
    :func:`dating_sql`; ``dbt_names``: dbt's column names as the snapshot's config has them,
    dbt's defaults when not given)."""
    names = dbt_column_names(dbt_names)
    sql = reconciliation_sql(f"{schema}.{snapshot}", f"{schema}.{manifest}", keys, run_id, audit)
    observed: dict[str, int] = {}
    expected: dict[str, int] = {}
    compared = differing = 0
    for seen, wanted, count in execute(sql):
        count = int(count)
        compared += count
        if seen != wanted:
            differing += count
        if seen in CODES:
            observed[CODES[seen]] = observed.get(CODES[seen], 0) + count
        if wanted in CODES:
            expected[CODES[wanted]] = expected.get(CODES[wanted], 0) + count
    table = f"{schema}.{snapshot}"
    ((source_rows, extra, missing),) = execute(
        state_sql(table, f"{schema}.{source}", columns or keys, audit)
    )
    ((dated_rows, misdated),) = execute(
        dating_sql(table, run_id, audit, updated_at, deletion_records, keys, names)
    )
    ((versions, closed),) = execute(history_sql(table, audit))
    ((*fingerprints,),) = execute(
        fingerprint_sql(
            table,
            columns or keys,
            audit,
            run_id,
            dbt_kept=[names[role] for role in _DBT_KEPT],
            dbt_closing=[names[role] for role in _DBT_CLOSING],
        )
    )
    kept, after = (Fingerprint(*map(int, fingerprints[i : i + 4])) for i in (0, 4))
    return Reconciliation(
        snapshot,
        day,
        run_id,
        observed,
        expected,
        compared,
        differing,
        state_rows=int(source_rows),
        state_differing=int(extra) + int(missing),
        dated_rows=int(dated_rows),
        misdated=int(misdated),
        history=History(int(versions), int(closed)),
        expected_history=history_before.after(expected),
        kept=kept,
        kept_before=fingerprint_before,
        after=after,
    )


def cdc_line(counts: dict[str, int]) -> str:
    """`U 4000, N 4000, I 2000, D 2000` (the classic hash-based CDC summary)."""
    return ", ".join(f"{code} {counts.get(code, 0)}" for code in CODES.values())
