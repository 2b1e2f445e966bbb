"""The private-metastore wrapper of ``make lint``: a command on a throwaway lakehouse of its own.

The wrapper always runs as a subprocess: the test run's only JVM is the ``spark`` fixture's.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from python_helpers.runtime.lakehouse import PROJECT_ROOT
from python_helpers.tooling.private_metastore import DEFAULTS_NAME, FOLDER_PREFIX
from python_helpers.tooling.scratch import ScratchProject

WRAPPER = [sys.executable, "-m", "python_helpers.tooling.private_metastore"]

# Run by the wrapper: reports the environment and the rendered spark-defaults.conf it was given,
# then exits with the status in argv[1] (to see that the wrapper passes it on).
REPORTER = textwrap.dedent(
    """
    import json, os, pathlib, sys
    conf_dir = pathlib.Path(os.environ["SPARK_CONF_DIR"])
    lines = (conf_dir / "spark-defaults.conf").read_text().splitlines()
    conf = dict(line.split(" ", 1) for line in lines if line and not line.startswith("#"))
    print(json.dumps({
        "lakehouse": os.environ["LAKEHOUSE_DIR"],
        "conf_dir": str(conf_dir),
        "conf": conf,
        "conf_files": sorted(p.name for p in conf_dir.iterdir()),
    }))
    sys.exit(int(sys.argv[1]))
    """
)


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The wrapper's environment: a stand-in "real" lakehouse, temporary folders under tmp_path."""
    (tmp_path / "tmp").mkdir(exist_ok=True)
    env = {
        **os.environ,
        "LAKEHOUSE_DIR": str(tmp_path / "real-lakehouse"),
        "TMPDIR": str(tmp_path / "tmp"),  # where tempfile.mkdtemp puts the private lakehouse
        "PYTHONPATH": str(PROJECT_ROOT),
        **extra,
    }
    if "SPARK_CONF_DIR" not in extra:
        env.pop("SPARK_CONF_DIR", None)
    return env


def _wrap(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*WRAPPER, *args],
        env=env or _env(tmp_path),
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _report(result: subprocess.CompletedProcess[str]) -> dict:
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("status", [0, 7])
def test_command_runs_on_a_private_lakehouse_removed_afterwards(
    tmp_path: Path, status: int
) -> None:
    result = _wrap(tmp_path, "--", sys.executable, "-c", REPORTER, str(status))
    assert result.returncode == status, result.stderr
    report = _report(result)
    lakehouse = Path(report["lakehouse"])
    real = tmp_path / "real-lakehouse"

    assert lakehouse.parent == (tmp_path / "tmp").resolve()
    assert lakehouse.name.startswith(FOLDER_PREFIX)
    assert Path(report["conf_dir"]) == lakehouse / "conf"
    conf = report["conf"]
    assert conf["spark.hadoop.javax.jdo.option.ConnectionURL"] == (
        f"jdbc:derby:;databaseName={lakehouse / 'metastore_db'};create=true"
    )
    assert f"-Dderby.system.home={lakehouse} " in conf["spark.driver.extraJavaOptions"]
    assert conf["spark.sql.warehouse.dir"] == str(lakehouse / "warehouse")
    assert conf["spark.local.dir"] == str(lakehouse / "tmp")
    assert not any(str(real) in value for value in conf.values())
    # The jars are the shared, provisioned ones, not copies in the private folder.
    assert str(lakehouse) not in conf.get("spark.driver.extraClassPath", "")

    assert not lakehouse.exists()
    assert list((tmp_path / "tmp").iterdir()) == []
    assert not real.exists(), "the real lakehouse is not touched"


def test_keep_leaves_the_folder(tmp_path: Path) -> None:
    result = _wrap(tmp_path, "--keep", "--", sys.executable, "-c", REPORTER, "0")
    assert result.returncode == 0, result.stderr
    lakehouse = Path(_report(result)["lakehouse"])
    assert (lakehouse / "conf" / DEFAULTS_NAME).is_file()
    assert str(lakehouse) in result.stderr


def test_other_configuration_files_are_copied(tmp_path: Path) -> None:
    """SPARK_CONF_DIR replaces the whole folder: logging settings beside the defaults stay."""
    own_conf = tmp_path / "own-conf"
    own_conf.mkdir()
    (own_conf / "log4j2.properties").write_text("rootLogger.level = error\n")
    (own_conf / DEFAULTS_NAME).write_text("spark.sql.warehouse.dir /elsewhere\n")
    env = _env(tmp_path, SPARK_CONF_DIR=str(own_conf))
    result = _wrap(tmp_path, "--", sys.executable, "-c", REPORTER, "0", env=env)
    assert result.returncode == 0, result.stderr
    report = _report(result)
    assert report["conf_files"] == ["log4j2.properties", DEFAULTS_NAME]
    assert report["conf"]["spark.sql.warehouse.dir"] == f"{report['lakehouse']}/warehouse"


def test_signal_and_missing_program_statuses(tmp_path: Path) -> None:
    killed = "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"
    assert _wrap(tmp_path, "--", sys.executable, "-c", killed).returncode == 128 + 15
    missing = _wrap(tmp_path, "--", str(tmp_path / "no-such-program"))
    assert missing.returncode == 127
    assert "cannot run" in missing.stderr
    assert list((tmp_path / "tmp").iterdir()) == []


@pytest.mark.parametrize("args", [[], ["--"], ["--keep", "--"]], ids=["nothing", "dashes", "keep"])
def test_missing_command_exits_2(tmp_path: Path, args: list[str]) -> None:
    result = _wrap(tmp_path, *args)
    assert result.returncode == 2
    assert "no command given" in result.stderr
    assert list((tmp_path / "tmp").iterdir()) == []


@pytest.mark.slow
def test_lint_runs_while_the_lakehouse_metastore_is_held(
    spark: SparkSession, tmp_path: Path
) -> None:
    """sqlfluff's dbt templater starts Spark; through the wrapper it does not wait for Derby.

    The fixture's session holds the Derby metastore of the test run's LAKEHOUSE_DIR, which the
    lint subprocess is given: without the wrapper, it would fail after about 3.5 minutes.
    """
    spark.sql("show databases").collect()  # the metastore opens lazily: hold it now
    lakehouse = Path(os.environ["LAKEHOUSE_DIR"])
    assert (lakehouse / "metastore_db" / "db.lck").exists()
    # A copy of the project (models, and the snapshots they ref), so that dbt's target/ and
    # logs/ are written there and not into the project's own folders.
    project = ScratchProject(tmp_path / "project", "lint", spark, include=("models", "snapshots"))
    for name in (".sqlfluff", ".sqlfluffignore"):
        shutil.copy(PROJECT_ROOT / name, project.root / name)
    sqlfluff = str(Path(sys.executable).parent / "sqlfluff")
    env = {**os.environ, "LAKEHOUSE_DIR": str(lakehouse), "PYTHONPATH": str(PROJECT_ROOT)}
    env.pop("SPARK_CONF_DIR", None)

    result = subprocess.run(
        [*WRAPPER, "--", sqlfluff, "lint", "models/cdc_check_current.sql"],
        env=env,
        cwd=project.root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    # On the held metastore the templater would fail ("Unable to instantiate
    # SessionHiveMetaStoreClient"): success means it ran on a metastore of its own.
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    assert "All Finished" in result.stdout
