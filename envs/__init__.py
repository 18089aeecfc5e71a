"""Text environments the agents drive (`envs.base.Env`, listed by an `envs.provider.EnvProvider`, found by
name through `envs.registry`, whose `make_env` builds one from an episode reference).

Importing this package is cheap: environment agents load lazily.
"""
