"""Running generated code and the repository's tests in a sandbox; the public entry is ``api``.

The parts: ``api`` (``run_in_sandbox``, ``sandbox_capabilities``, the probe), ``run`` (one
launch), ``env`` (the host plan, work dir, environment), ``boot`` (the launcher, executed BY
PATH as ``python -I -S boot.py``, with its contract in ``boot_types``), ``landlock`` and
``seccomp`` (ctypes, loaded by path by the launcher), ``protect`` (what a run achieved, shared
by both sides) and ``watch`` (uid leases, kills, the disk quota).

Empty on purpose: the Cat imports every ``.py`` file, this one again as a plain module, so a
package init holds nothing that runs and re-exports nothing.
"""
