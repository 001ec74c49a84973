"""The draft loop: generate a change, apply it, validate it, compare it with the goal, commit or
roll back.

``draft_loop`` runs the iterations; ``state`` is what a run is built from and its per-run state;
``context`` the context step; ``scope_draft`` a change across several files; ``extended`` the
after-commit steps (documentation and review); ``phases`` a task's phases and their legal
transitions; ``outcomes`` how an iteration ends and the verdict the history records.

Empty on purpose: the Cat imports every ``.py`` file (this one again as a plain module), so
nothing is re-exported here; ``codegen/__init__.py`` is the entry point.
"""
