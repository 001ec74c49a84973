"""The checks a draft goes through, cheapest first, and their structured report.

``validate`` runs them in order: ``pycheck`` (syntax, imports), ``lint``, ``callsites`` (every
call of the target against its new signature), ``api_check`` (library calls against the indexed
sources), ``pytest_runner`` with ``related_tests`` (the tests that cover the change, in the
sandbox); ``judge`` asks the model whether the acceptance checks hold; ``report`` is the
vocabulary every check reports in.

Empty on purpose: the Cat imports every ``.py`` file (this one again as a plain module), so
nothing is re-exported here; ``codegen/__init__.py`` is the entry point.
"""
