import pytest

from tests import shared_lakes
from tests.audit.audit_lake import build_and_run


@pytest.fixture(scope="session")
def audit_built(tmp_path_factory):
    """(lake, db, manifest, work): the audit lake after `dbt run` of the audited marts, built once for the
    session and shared by test_audit.py and test_hostile_bundle.py (tests/shared_lakes.py). Read only:
    a test that writes makes its own lake."""
    return shared_lakes.built_once(tmp_path_factory, "audit", build_and_run)
