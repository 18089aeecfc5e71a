"""`pip install` builds the project without setuptools' deprecation warning about the license."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_the_license_is_an_spdx_string_and_the_build_needs_a_setuptools_that_reads_it() -> None:
    data = tomllib.loads(PYPROJECT.read_text())
    assert data["project"]["license"] == "MIT"  # a table ({text = ...}) is deprecated: pip install warns
    setuptools = next(r for r in data["build-system"]["requires"] if r.startswith("setuptools"))
    minimum = re.search(r">=\s*(\d+)", setuptools)
    assert minimum and int(minimum.group(1)) >= 77  # PEP 639 license strings: setuptools 77 and later


def _package_data_matches(data: dict[str, list[str]], path: Path) -> bool:
    """Whether setuptools' package-data globs (relative to their package's folder) take `path`."""
    root = PYPROJECT.parent
    for package, patterns in data.items():
        folder = root / package.replace(".", "/")
        if folder not in path.parents:
            continue
        for pattern in patterns:
            if path in set(folder.glob(pattern)):
                return True
    return False


def test_every_data_file_the_code_reads_goes_into_the_wheel() -> None:
    """A `pip install recode-tui` (not editable) must carry prompts, action lists, limit tables and
    demos: each file beside the code that git tracks is matched by `tool.setuptools.package-data`."""
    import subprocess

    data = tomllib.loads(PYPROJECT.read_text())["tool"]["setuptools"]["package-data"]
    listed = subprocess.run(["git", "ls-files", "agent", "envs", "mockllm", "recode_tui"], cwd=PYPROJECT.parent,
                            capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: " + listed.stderr.strip())
    files = [PYPROJECT.parent / line for line in listed.stdout.splitlines()
             if not line.endswith(".py") and not line.endswith("README.md")]
    assert files, "no data files found"
    left_out = [str(f.relative_to(PYPROJECT.parent)) for f in files if not _package_data_matches(data, f)]
    assert left_out == [], f"not in the wheel (add to package-data): {left_out[:10]}"
