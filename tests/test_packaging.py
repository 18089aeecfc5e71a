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
