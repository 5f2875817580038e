"""Judges and experiments are found in judging/ (judging.registry), not listed: a judge module is one
that sets JUDGE, an experiment's judge one that also sets EXPERIMENT."""

import importlib
import pkgutil

from peerlake import judging
from peerlake.judging import registry


def _declaring(attr: str) -> set[str]:
    """Module names of judging/ that set `attr`, read here without the registry."""
    out = set()
    for info in pkgutil.iter_modules(judging.__path__):
        if not info.ispkg and hasattr(importlib.import_module(f"peerlake.judging.{info.name}"), attr):
            out.add(info.name)
    return out


def test_every_module_that_declares_a_judge_is_registered_once():
    quality = {m.__name__.removeprefix("peerlake.judging.") for m in registry.judges().values()}
    experiment = {m.__name__.removeprefix("peerlake.judging.") for m in registry.experiments().values()}
    assert quality | experiment == _declaring("JUDGE")
    assert experiment == _declaring("EXPERIMENT") and not quality & experiment


def test_a_review_quality_judge_is_named_for_its_module():
    # costs.plan and the judgments assets import a judge as judging.<name>.
    for name, module in registry.judges().items():
        assert module.__name__ == f"peerlake.judging.{name}" and name == module.JUDGE
        assert module.TEMPLATES and module.PARSER_VERSION and callable(module.judge)


def test_order_is_what_studies_already_wrote():
    # Studies list judges and experiments in this order (the built-in ones, `--judges all`); an asset's
    # code version hashes them in it. The regression oracle is the lists as they were written by hand.
    assert registry.judge_names() == ("depth", "novelty", "flaws", "constructiveness")
    assert registry.experiment_names() == ("contradictions", "hidden_text", "withdrawals", "score_prediction",
                                           "focus", "stress")
    assert registry.variant_experiments() == ("contradictions", "hidden_text", "stress")


def test_every_experiment_judge_reads_a_table_and_a_builder_makes_manuscripts():
    for name, module in registry.experiments().items():
        assert name == module.EXPERIMENT and isinstance(module.KEYS, set | frozenset)
        assert hasattr(module.Spec, "from_table") and module.DEFAULT_REPEATS >= 1
        built = registry.builder_module(name)
        if built is not None:
            assert hasattr(importlib.import_module(built).Spec, "from_table"), built


def test_the_study_package_lists_the_registry():
    # studies/spec.py names the judges and experiments a study may use; it must agree with judging/.
    from peerlake import studies
    assert tuple(studies.JUDGES) == registry.judge_names()
    assert tuple(studies.EXPERIMENTS) == registry.experiment_names()
    assert tuple(studies.VARIANT_EXPERIMENTS) == registry.variant_experiments()


def test_each_judge_states_what_it_reads_and_the_sections_table_is_theirs():
    # judging.reviews.JUDGE_SECTIONS is read from the judge modules' SECTIONS, not kept as a list.
    from peerlake.judging.reviews import ARGUMENT, JUDGE_SECTIONS

    assert set(JUDGE_SECTIONS) == set(registry.by_judge()) == {m.JUDGE for m in registry.by_judge().values()}
    for name, module in registry.by_judge().items():
        assert JUDGE_SECTIONS[name] is module.SECTIONS
    # PRISM's sets, as its code forms them: the argument for depth, Summary/Weaknesses/Questions for flaws.
    assert JUDGE_SECTIONS["depth"] == ARGUMENT == frozenset({"summary", "strengths", "weaknesses"})
    assert JUDGE_SECTIONS["flaws"] == frozenset({"summary", "weaknesses", "questions"})
    assert JUDGE_SECTIONS["constructiveness"] is None


def test_a_judge_module_without_sections_is_refused(monkeypatch):
    import types

    import pytest

    fake = types.ModuleType("peerlake.judging.nosections")
    fake.JUDGE, fake.ORDER = "nosections", 99
    real_import = importlib.import_module
    monkeypatch.setattr(registry.pkgutil, "iter_modules",
                        lambda path: [pkgutil.ModuleInfo(None, "nosections", False)])
    monkeypatch.setattr(registry.importlib, "import_module",
                        lambda name: fake if name == "peerlake.judging.nosections" else real_import(name))
    with pytest.raises(ImportError, match="needs SECTIONS"):
        registry._scan()  # refused before anything is registered


def test_an_unknown_judge_names_the_known_ones_and_the_closest():
    import pytest

    with pytest.raises(KeyError) as exc:
        registry.judge_module("novelt")
    assert "unknown judge 'novelt'" in str(exc.value) and "did you mean 'novelty'?" in str(exc.value)
    assert "depth" in str(exc.value) and "write-a-judge.md" in str(exc.value)


def test_two_modules_with_one_judge_name_fail_naming_both(monkeypatch):
    import types

    import pytest

    from peerlake.warehouse.registry import DuplicateName

    twin = types.ModuleType("peerlake.judging.depth_twin")
    twin.JUDGE, twin.ORDER, twin.SECTIONS = "depth", 1, None
    twin.METRICS = registry.judge_module("depth").METRICS
    real_import = importlib.import_module
    monkeypatch.setattr(registry.pkgutil, "iter_modules",
                        lambda path: [pkgutil.ModuleInfo(None, "depth", False), pkgutil.ModuleInfo(None, "depth_twin",
                                                                                                   False)])
    monkeypatch.setattr(registry.importlib, "import_module",
                        lambda name: twin if name == "peerlake.judging.depth_twin" else real_import(name))
    with pytest.raises(DuplicateName, match=r"judge 'depth' is registered twice: by peerlake.judging.depth and by "
                                            r"peerlake.judging.depth_twin"):
        registry._scan()
