"""The conversation's rules: where a user stands, what a message is given that, and what the
plugin does about it (one reading per turn, one table).

``situation`` is where a user stands (plain data the glue builds from the task's one owner);
``turn_reading`` reads a message once, given that, into a ``Reading``; ``corrections`` says
whether a message sent while a proposal waits changes it, and what answers the file question;
``rules`` is the table from (stage, kind of message) to what the plugin does.

Empty on purpose: the Cat imports every ``.py`` file (this one again as a plain module), so
nothing is re-exported here; ``codegen/__init__.py`` is the entry point.
"""
