"""ScienceWorld (the ReCode paper's second environment) behind the environment seam.

The simulator is a Java program inside the `scienceworld` wheel; one JVM per
process is started on the first reset, never at import, and reused across
episodes (see `simulator.py`).
"""
