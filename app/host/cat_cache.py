"""Working-memory files of the Cat's ``file_system`` cache that no longer unpickle, set aside
when the Cat starts, so their users are not locked out.

The Cat writes a user's working memory in place (``open(path, "wb")`` then ``pickle.dump``,
docs/cat-plugin-api.md, "Who owns a task's state"), also when a socket closes at shutdown; a Cat
stopped or killed during that write leaves a truncated or empty file. The next Cat then fails
every connection of that user before any plugin hook runs (``pickle.load`` raises ``EOFError``
in ``StrayCat.__init__``: HTTP 500 on the websocket): the user is stranded. At start-up
(``after_cat_bootstrap``, on the Cat's own thread, before it serves anyone) such a file is
renamed to ``<file>.unreadable-<time>``: the Cat then starts that user's chat afresh, and the
plugin's own store still holds the user's task. Nothing else of the cache is touched.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import time

log = logging.getLogger(__name__)

#: How the Cat names a user's working memory in its cache folder.
SUFFIX = "_working_memory.cache"


def cache_folder() -> str | None:
    """The Cat's cache folder when it caches on disk (``CCAT_CACHE_TYPE=file_system``)."""
    if os.environ.get("CCAT_CACHE_TYPE", "in_memory") != "file_system":
        return None
    return os.environ.get("CCAT_CACHE_DIR", "/tmp")


def set_aside_unreadable(folder: str) -> list[str]:
    """Rename every working-memory file of ``folder`` that does not unpickle; the users whose
    file was set aside."""
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(SUFFIX))
    except OSError:
        return []
    users = []
    for name in names:
        path = os.path.join(folder, name)
        try:
            with open(path, "rb") as handle:
                pickle.load(handle)  # the Cat's own file, read as the Cat reads it
            continue
        except Exception as err:  # noqa: BLE001 - whatever unpickling raises, the file is torn
            reason = f"{type(err).__name__}: {err}"
        with contextlib.suppress(OSError):
            os.replace(path, f"{path}.unreadable-{int(time.time())}")
            users.append(name[:-len(SUFFIX)])
            log.warning("code working memory: the Cat's working memory of %s did not unpickle "
                        "(%s, a write cut short); set aside so the user can connect again",
                        name[:-len(SUFFIX)], reason)
    return users
