"""The console's side of sessions: the journal of the run on show, the draft and the debug set-up kept with it."""
