"""One run of the console: how it is built, where it stands, its status figures, and what its parts may use of each other."""
