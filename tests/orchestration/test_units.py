"""A study's work in units (orchestration.assets.units): what a worker takes at a time."""

import pytest


def test_units_keep_order_size_and_a_paper_together():
    from peerlake.orchestration.assets.units import chunks

    items = [("p1", 0), ("p1", 1), ("p1", 2), ("p2", 0), ("p3", 0), ("p3", 1), ("p4", 0)]
    units = chunks(items, 3, group=lambda x: x[0])
    assert [x for u in units for x in u] == items  # nothing lost, nothing twice, in order
    assert units == [[("p1", 0), ("p1", 1), ("p1", 2)], [("p2", 0), ("p3", 0), ("p3", 1)], [("p4", 0)]]
    assert chunks(items, 2) == [items[0:2], items[2:4], items[4:6], items[6:]]
    assert chunks(items, 0) == [items]  # one unit: the in-process default
    assert chunks([("big", i) for i in range(5)], 2, group=lambda x: x[0]) == [[("big", i) for i in range(5)]]
    assert chunks([], 4) == []


@pytest.mark.parametrize("raw", ["eight", "-1", "2.5"])
def test_a_unit_size_that_is_no_whole_number_names_its_variable(monkeypatch, raw):
    from peerlake.orchestration.assets.units import UNIT_SIZE_ENV, unit_size
    from peerlake.warehouse.settings import SettingError

    monkeypatch.setenv(UNIT_SIZE_ENV, raw)
    with pytest.raises(SettingError, match=f"{UNIT_SIZE_ENV}='{raw}': expected a whole number >= 0"):
        unit_size()
    monkeypatch.setenv(UNIT_SIZE_ENV, "0")
    assert unit_size() == 0
