"""Long random chats in a real Cat 1.9.2 (opt-in: CCAT_CORE_DIR), checked against the README's
rules: three users, 60 steps and more each run, toggles, re-uploads, graceful restarts and a
kill -9, the ``file_system`` cache torn while drafts run (random_chats.py).

At the end: no user stranded (each one's next message is answered, and a request reaches the
plugin), no draft lost or drafted twice, no request swapped, nothing written without "apply",
and no traceback from the plugin in the Cat's log. ``CWM_RANDOM_CHAT_SEEDS`` (comma-separated)
and ``CWM_RANDOM_CHAT_STEPS`` run more; ``bench/random_chat_bench.py`` runs many seeds.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import tempfile

import pytest

from ..unit.glue.conversation_model import CAT_ANSWER, REQUESTS, ConversationModel, walk
from ..unit.glue.test_conversation_model import SETTINGS, make_repository
from . import cat_harness
from .random_chats import REAL_RULES, ServedChats

pytestmark = [pytest.mark.integration, pytest.mark.filterwarnings("ignore::FutureWarning")]

USERS = ("alice", "bob", "carol")
SEEDS = [int(s) for s in os.environ.get("CWM_RANDOM_CHAT_SEEDS", "11,29").split(",")]
STEPS = int(os.environ.get("CWM_RANDOM_CHAT_STEPS", "60"))


def random_chat(core, tmp_path, seed: int, steps: int, events: tuple[str, ...],
                forced: str = "restart") -> list[str]:
    """One seeded chat, with ``forced`` (a plugin event) half-way; the steps taken."""
    repo = make_repository(tmp_path / "repo")
    plugins_name = os.path.basename(tempfile.mkdtemp(prefix="cwm_rnd_", dir=core))
    plugin_dir = cat_harness.mirror_plugin(core / plugins_name / cat_harness.PLUGIN_ID)
    (plugin_dir / "settings.json").write_text(json.dumps({
        **SETTINGS, "repository_path": str(repo), "data_folder": str(tmp_path / "data"),
        "follow_edits": False}))
    driver = ServedChats(core, tmp_path, plugins_name, repo, USERS)
    taken: list[str] = []
    try:
        model = ConversationModel(driver, USERS)
        rng = random.Random(seed)
        taken += walk(model, rng, steps // 2, events, REAL_RULES)
        model.plugin_event(forced)
        taken.append(f"event {forced} (forced)")
        taken += walk(model, rng, steps - steps // 2, events, REAL_RULES)
        model.drafts_finish()
        for user in USERS:  # nobody is stranded: a message is answered, a request reaches
            answer = model.say(user, "hello, how are you?")
            assert answer.startswith(CAT_ANSWER) or "was interrupted" in answer, answer
            model.drafts_finish()
            model.request(user, REQUESTS[0])
        taken.append(f"events: {driver.events}")
        return taken
    except AssertionError as err:
        raise AssertionError(f"seed {seed}, after {len(taken)} steps: {err}\nsteps:\n"
                             + "\n".join(taken[-30:])) from err
    finally:
        driver.close()
        shutil.rmtree(core / plugins_name, ignore_errors=True)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_long_random_chat_keeps_the_rules(cat_core, tmp_path, seed):
    forced = "kill" if seed == SEEDS[-1] else "restart"  # one kill -9 per run of the layer
    taken = random_chat(cat_core, tmp_path, seed, STEPS, ("toggle", "reupload", "restart"),
                        forced)
    assert len(taken) >= STEPS
