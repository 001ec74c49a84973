"""Rename and move requests read from the whole message, without a model."""

from __future__ import annotations

import pytest

from codemem.codegen.refactor.request import MoveRequest, RenameRequest, read_structural


@pytest.mark.parametrize(("message", "expected"), [
    ("rename fmt_ts to format_timestamp", RenameRequest("fmt_ts", "format_timestamp")),
    ("Please rename the function `fmt_ts` in utils/time.py to `format_timestamp`.",
     RenameRequest("fmt_ts", "format_timestamp", "utils/time.py")),
    ("rename method Client.send as post", RenameRequest("Client.send", "post")),
    ("could you rename parse_date() into parse_day?", RenameRequest("parse_date", "parse_day")),
    ("move parse_date to utils/dates.py", MoveRequest("parse_date", "utils/dates.py")),
    ("move the class Token from auth.py into the module models/token.py",
     MoveRequest("Token", "models/token.py", "auth.py")),
])
def test_renames_and_moves_are_read(message, expected) -> None:
    assert read_structural(message) == expected


@pytest.mark.parametrize("message", [
    "rename fmt_ts to format_timestamp and make it return an aware datetime",
    "split process_order into validate_order and charge_order",
    "move on", "rename", "what does rename do?", "move parse_date to somewhere nice",
])
def test_anything_more_is_left_to_the_proposal(message) -> None:
    assert read_structural(message) is None
