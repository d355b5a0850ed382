"""Test support that ships with the package: the family contract, hostile texts, tiny models.

    checks.py           ``check_family(spec)``: every check that holds for every family, in
                        one call (a new family's author runs it; the tests run it per family)
    probes.py, texts.py, look.py, step_checks.py, capability_checks.py, impossible.py, boards.py
                        its parts: steps built from the rules, the parsers on hostile input,
                        the oracle aid's pixels, the candidate steps against every legal
                        step, the optional capabilities, impossible boards from_json must
                        refuse, boards that must tell states apart
    hostile.py          answer texts that make careless parsers slow (``benchmarks/score.py``
                        times them)
    tiny_models.py, tiny_generators.py
                        tiny random models built offline from configs, for tests and
                        ``benchmarks/episodes.py`` (need torch and transformers, imported
                        when called)

The rest of the package never imports this one: it sits above every other layer.
"""

from __future__ import annotations

from vgau_data.testing.checks import FamilyCheckError, check_family

__all__ = ["FamilyCheckError", "check_family"]
