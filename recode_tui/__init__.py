"""recode-tui: the ReCode debugging console and command line."""

__version__ = "0.1.0"
