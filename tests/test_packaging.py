"""The pinned environment: pyproject.toml's pins and constraints.txt agree, and the suite runs on
the versions constraints.txt names (what `make setup` installs on a fresh clone)."""

from __future__ import annotations

import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]


def _constraints() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            requirement = Requirement(line)
            (specifier,) = requirement.specifier
            assert specifier.operator == "==", f"constraints.txt: {line!r} is not an exact pin"
            pins[canonicalize_name(requirement.name)] = specifier.version
    return pins


def test_every_pyproject_pin_is_the_constraints_version() -> None:
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    constraints = _constraints()
    differing = {}
    for dependency in dependencies:
        requirement = Requirement(dependency)
        (specifier,) = requirement.specifier
        name = canonicalize_name(requirement.name)
        if constraints.get(name) != specifier.version:
            differing[name] = (specifier.version, constraints.get(name))
    assert differing == {}, f"pyproject.toml's pin vs constraints.txt's: {differing}"


def test_the_suite_runs_on_the_constrained_versions() -> None:
    installed = {}
    for name, pinned in _constraints().items():
        try:
            installed[name] = version(name)
        except PackageNotFoundError:
            installed[name] = None
    differing = {
        name: (pinned, installed[name])
        for name, pinned in _constraints().items()
        if installed[name] != pinned
    }
    assert differing == {}, f"constraints.txt's version vs the installed one: {differing}"
