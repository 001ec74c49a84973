"""The user's repository on disk: the only code that writes to it.

Why inside the memory core: applying a draft writes files that the code index reads and the
draft history (``commits``) recorded, under the same lock discipline (``oslocks``). ``root``
checks a configured repository path, ``safe_fs`` replaces files without following symlinks
out of the tree, and ``writeback`` applies a draft only when no file changed since the draft
started.
"""
