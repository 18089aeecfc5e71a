"""What every agent is stepped by: the Stepper base, its events and tree, runners, the debugger."""
