"""The console's screens: a run's debug screen, the first frame, and the screens pushed over them."""
