"""Which folders may be registered as the repository to index and draft for.

The path comes from the admin settings, so it is trusted more than LLM output, but a typo such
as ``/`` or a path into the Cat's own data would have the plugin read (and, on write-back,
write) places it must not touch. Refusals name the path and the reason.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from ..errors import UnsafeInput

#: System trees never indexed, whatever the settings say.
SYSTEM_ROOTS = ("/", "/proc", "/sys", "/dev", "/etc", "/boot", "/bin", "/sbin", "/lib",
                "/lib64", "/usr", "/var", "/run", "/root", "/home")


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def check_repository_root(path: str, *, protected: Iterable[str] = ()) -> str:
    """Return the resolved repository folder, or raise ``UnsafeInput`` saying why not.

    ``protected`` folders (the plugin's data folder, the Cat's data folder) may not be the
    repository nor lie inside it. A system tree may not be the repository itself, but a project
    below one (``/srv/project``, ``/usr/src/app``) is fine.
    """
    if not isinstance(path, str) or not path.strip():
        raise UnsafeInput("no repository path is set: choose one in the plugin settings")
    if "\x00" in path:
        raise UnsafeInput(f"repository path {path!r} contains a NUL byte")
    raw = os.path.expanduser(path.strip())
    if not os.path.isabs(raw):
        raise UnsafeInput(f"repository path {path!r} must be absolute, e.g. /workspace")
    real = os.path.realpath(raw)
    if not os.path.isdir(real):
        raise UnsafeInput(f"repository path {path!r} is not an existing folder")
    if real in SYSTEM_ROOTS or real.rstrip(os.sep) in SYSTEM_ROOTS:
        raise UnsafeInput(f"repository path {path!r} is a system folder ({real}); "
                          "point it at a project folder")
    for folder in protected:
        guarded = os.path.realpath(folder)
        if _inside(real, guarded) or _inside(guarded, real):
            raise UnsafeInput(f"repository path {path!r} overlaps the protected folder "
                              f"{guarded}; choose the project folder itself")
    return real
