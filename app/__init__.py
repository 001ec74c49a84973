"""The glue between the Cheshire Cat and the framework-free cores, in layers.

``entry`` (what the Cat calls) uses ``chat`` (one message: routing, commands, status, recall,
the request form), which uses ``process`` (the process-wide state of this import of the plugin),
which uses ``drafting`` (a user's session and its draft loop), which uses ``projects`` (a
repository's stores, shared by its users), which uses ``host`` (the settings, the Cat's LLM,
the plugin's lifecycle). Every import points down that list, and reaches the cores only through
``memory``, ``codegen`` and ``llm`` (docs/architecture.md). This file defines nothing: the Cat
imports it as a module of its own too (docs/cat-plugin-api.md, "Loading the plugin").
"""
