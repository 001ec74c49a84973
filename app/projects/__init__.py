"""A repository's long-lived stores, shared by its users: registry, workspace, ledger, index."""
