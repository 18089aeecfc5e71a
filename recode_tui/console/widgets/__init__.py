"""The console's widgets, one module each, and the text search the panes share."""
