"""A user's code task: the session, its proposal, the draft loop's worker, history and apply."""
