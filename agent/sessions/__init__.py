"""A run kept on disk: the journal, replay, resume and fork, export."""
