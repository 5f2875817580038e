"""Reviewer systems register themselves in reviewing/systems/ (@reviewer_system), not in a list kept
elsewhere: every ReviewerSystem subclass with its own `name` in a module of the package is a system a
study may name (a class that forgets its decorator fails the first test)."""

import importlib
import inspect
import pkgutil

import peerlake.reviewing.systems as systems
from peerlake.reviewing.systems import ReviewerSystem, get_system, register, system_names


def test_every_named_system_class_of_the_package_is_a_system():
    classes = {c.name: c for info in pkgutil.iter_modules(systems.__path__)
               for _, c in inspect.getmembers(importlib.import_module(f"peerlake.reviewing.systems.{info.name}"),
                                              inspect.isclass)
               if issubclass(c, ReviewerSystem) and "name" in vars(c)}
    assert set(system_names()) == set(classes)
    assert all(type(get_system(n)) is classes[n] for n in system_names())


def test_listing_order_is_the_one_written_before():
    # `peerlake systems` lists them in this order, and the system_reviews asset's code version hashes them
    # in it: a regression oracle, the list as it was kept by hand.
    assert system_names() == ("mlr", "mlr-combined", "llm-review", "ai-scientist", "agentreview")
    assert system_names() == systems.SYSTEMS


def test_a_registered_system_is_nameable_but_not_built_in(monkeypatch):
    system_names()  # the package's systems are in before the copy the toy goes into
    monkeypatch.setattr(systems.REGISTRY, "_entries", dict(systems.REGISTRY._entries))  # it leaves with the test

    class Toy(ReviewerSystem):
        name = "toy-registry-test"

    register(Toy())
    assert get_system("toy-registry-test").name == "toy-registry-test"
    assert "toy-registry-test" not in systems.SYSTEMS
