"""Every PTF scenario (ptf-tests/rdtcp_scenarios.py) in library mode: fast feedback, same frames."""

from __future__ import annotations

import pytest

import rdtcp_scenarios as sc


@pytest.mark.parametrize("scenario", sc.ALL, ids=[s.__name__ for s in sc.ALL])
def test_scenario_library_mode(lib, scenario):
    scenario(lib)
