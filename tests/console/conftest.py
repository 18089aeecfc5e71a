"""Console tests share the helpers in tests/console/helpers.py."""
