"""LLM edits applied to a copy of the draft; the public entry is ``api`` (``apply_reply``).

``api`` reads a reply into modifications and applies them; ``entity`` replaces a whole Python
definition with libcst; ``search`` applies SEARCH/REPLACE blocks. Empty on purpose: the Cat
imports every ``.py`` file (this one again as a plain module), so nothing is re-exported here.
"""
