"""A run's settings as one record (`agent.run.spec.RunSpec`), below the agents, sessions and eval that embed it."""
