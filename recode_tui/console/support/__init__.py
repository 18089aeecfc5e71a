"""What the console adds around Textual itself: the hooks on its private API and the crash report."""
