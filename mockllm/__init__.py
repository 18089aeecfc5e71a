"""LLMs that are not a remote model: a person typing, a scripted replay."""


