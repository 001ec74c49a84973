"""What a message asks for, read without a model: commands, code requests, questions, replies.

``utterance`` normalises a message once (greetings, the Cat's name, fillers, thanks, emoji);
``clauses`` splits it into its parts and ``clause_reading`` finds the one thing a part says
(``typos``: one typo per word of a reader's own words); ``commands`` reads the plugin's own
commands; ``intent`` decides between a code request, a question about the code and ordinary chat
(``signals``, ``words``, ``frames``, ``text`` are its parts, ``details`` the file, symbol and
kind a request names, ``known_code`` the index lookup it asks, ``pasted`` code pasted into a
message); ``replies`` reads an answer to a proposal.

Empty on purpose: the Cat imports every ``.py`` file (this one again as a plain module), so
nothing is re-exported here; ``codegen/__init__.py`` is the entry point.
"""
