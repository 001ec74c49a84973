"""Changes made by structure, not by a model: renames and moves of Python definitions.

``rename`` renames a top-level function or class (``rename_member`` a method) in its
definition, the imports and every use, through libcst; ``move`` moves a top-level definition
to another module and rewrites the imports; ``edits`` holds what both share (resolving
imports, the strings that name the symbol, applying the rewrite); ``request`` reads "rename X
to Y" and "move X to path" from a message, ``reading`` a rename from the model's meta-code;
``codegen/loop/prepared.py`` validates and commits the result like a draft of the loop, with no
LLM call. What cannot be rewritten safely (dynamic access, the name
in a string, star imports, a name already taken) is refused with every place named.

Empty on purpose: the Cat imports every ``.py`` file (this one again as a plain module).
"""
