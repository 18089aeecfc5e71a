"""ALFWorld environment: real TextWorld/ALFWorld engine, bundled generated games.

Cheap to import: the engine (textworld, alfworld) loads on the first reset().
"""

from __future__ import annotations


