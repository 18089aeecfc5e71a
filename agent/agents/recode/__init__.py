"""ReCode: plans as code, undefined calls expanded recursively (a peer of the other agents)."""
