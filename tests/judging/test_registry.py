"""Judges and experiments are found in judging/ (judging.registry), not listed: a judge module is one
that sets JUDGE, an experiment's judge one that also sets EXPERIMENT."""

import importlib
import pkgutil

import judging
from judging import registry


def _declaring(attr: str) -> set[str]:
    """Module names of judging/ that set `attr`, read here without the registry."""
    out = set()
    for info in pkgutil.iter_modules(judging.__path__):
        if not info.ispkg and hasattr(importlib.import_module(f"judging.{info.name}"), attr):
            out.add(info.name)
    return out


def test_every_module_that_declares_a_judge_is_registered_once():
    quality = {m.__name__.removeprefix("judging.") for m in registry.judges().values()}
    experiment = {m.__name__.removeprefix("judging.") for m in registry.experiments().values()}
    assert quality | experiment == _declaring("JUDGE")
    assert experiment == _declaring("EXPERIMENT") and not quality & experiment


def test_a_review_quality_judge_is_named_for_its_module():
    # costs.plan and the judgments assets import a judge as judging.<name>.
    for name, module in registry.judges().items():
        assert module.__name__ == f"judging.{name}" and name == module.JUDGE
        assert module.TEMPLATES and module.PARSER_VERSION and callable(module.judge)


def test_order_is_what_studies_already_wrote():
    # Studies list judges and experiments in this order (the built-in ones, `--judges all`); an asset's
    # code version hashes them in it. The regression oracle is the lists as they were written by hand.
    assert registry.judge_names() == ("depth", "novelty", "flaws", "constructiveness")
    assert registry.experiment_names() == ("contradictions", "hidden_text", "withdrawals", "score_prediction",
                                           "focus")
    assert registry.variant_experiments() == ("contradictions", "hidden_text")


def test_every_experiment_judge_reads_a_table_and_a_builder_makes_manuscripts():
    for name, module in registry.experiments().items():
        assert name == module.EXPERIMENT and isinstance(module.KEYS, set | frozenset)
        assert hasattr(module.Spec, "from_table") and module.DEFAULT_REPEATS >= 1
        built = registry.builder_module(name)
        if built is not None:
            assert hasattr(importlib.import_module(built).Spec, "from_table"), built


def test_the_study_package_lists_the_registry():
    # studies/spec.py names the judges and experiments a study may use; it must agree with judging/.
    import studies

    assert tuple(studies.JUDGES) == registry.judge_names()
    assert tuple(studies.EXPERIMENTS) == registry.experiment_names()
    assert tuple(studies.VARIANT_EXPERIMENTS) == registry.variant_experiments()
