"""What an interpreter needs to run, and nothing more: the files the worker's root holds.

A distribution's Python lives in `/usr`, beside everything else the machine
has (`/usr/local/etc`, `/usr/src`, `/usr/local/bin`, other Pythons' packages in
`/usr/lib/python3/dist-packages`), so its prefix is never bound whole: only
the binary, its standard library (with `lib-dynload`), its shared library if
it has one, and the system's shared-library folders (the multiarch folder
alone where the system has one). Folders of installed packages inside those
are hidden (`hidden`). Asked of the interpreter itself, once per interpreter.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import sysconfig
from dataclasses import dataclass

_TOP_LIBRARY_FOLDERS = ("/usr/lib", "/lib")  # where a multiarch system keeps its libraries in a subfolder
_OTHER_LIBRARY_FOLDERS = ("/usr/lib64", "/lib64", "/usr/lib32", "/lib32")
LIBRARY_LINKS = (*_TOP_LIBRARY_FOLDERS, *_OTHER_LIBRARY_FOLDERS)  # merged /usr makes some of these links
_PACKAGE_FOLDERS = ("site-packages", "dist-packages")

# Run by another interpreter than this one: where its files are (no site: nothing of the user's runs).
_ASK = (
    "import json, os, sys, sysconfig\n"
    "shared = sysconfig.get_config_var('Py_ENABLE_SHARED') and os.path.join("
    "sysconfig.get_config_var('LIBDIR') or '', sysconfig.get_config_var('INSTSONAME') or '')\n"
    "print(json.dumps({'binary': os.path.realpath(sys.executable), 'stdlib': os.path.dirname(os.__file__),"
    " 'dynload': sysconfig.get_config_var('DESTSHARED') or '', 'shared': shared or '',"
    " 'multiarch': sysconfig.get_config_var('MULTIARCH') or '',"
    " 'packages': [sysconfig.get_path(k, vars={'base': sys.base_prefix, 'platbase': sys.base_prefix})"
    " for k in ('purelib', 'platlib')]}))"
)


@dataclass(frozen=True)
class InterpreterFiles:
    """The paths an interpreter reads to start and import its standard library."""

    binary: str
    stdlib: str
    extra: tuple[str, ...]  # lib-dynload where it is outside the standard library, the shared libpython
    libraries: tuple[str, ...]  # the system's shared-library folders
    hidden: tuple[str, ...]  # folders of installed packages inside what is bound (an empty tmpfs over each)

    @property
    def bound(self) -> list[str]:
        """Everything bound read-only, in mount order (folders before what is inside them)."""
        inside = [self.stdlib, *self.extra, self.binary]
        return [*self.libraries, *(p for p in inside if not _under_any(p, self.libraries))]


def _under_any(path: str, folders: tuple[str, ...] | list[str]) -> bool:
    return any(path == folder or path.startswith(folder.rstrip("/") + "/") for folder in folders)


def _this_interpreter() -> dict[str, object]:
    shared = ""
    if sysconfig.get_config_var("Py_ENABLE_SHARED"):
        shared = os.path.join(sysconfig.get_config_var("LIBDIR") or "", sysconfig.get_config_var("INSTSONAME") or "")
    base = {"base": sys.base_prefix, "platbase": sys.base_prefix}
    return {"binary": os.path.realpath(sys.executable), "stdlib": os.path.dirname(os.__file__),
            "dynload": sysconfig.get_config_var("DESTSHARED") or "", "shared": shared,
            "multiarch": sysconfig.get_config_var("MULTIARCH") or "",
            "packages": [sysconfig.get_path(key, vars=base) for key in ("purelib", "platlib")]}


def _ask(python: str) -> dict[str, object] | None:
    try:
        done = subprocess.run([python, "-I", "-S", "-c", _ASK], capture_output=True, text=True, timeout=30,
                              env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
        answer = json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else None
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return None
    return answer if isinstance(answer, dict) else None


def library_folders(multiarch: str) -> tuple[str, ...]:
    """The system's shared-library folders: `/usr/lib/<multiarch>` rather than all of `/usr/lib` where it exists."""
    folders: list[str] = []
    for top in _TOP_LIBRARY_FOLDERS:
        if os.path.islink(top) or not os.path.isdir(top):
            continue
        sub = os.path.join(top, multiarch) if multiarch else ""
        folders.append(sub if sub and os.path.isdir(sub) and not os.path.islink(sub) else top)
    folders += [f for f in _OTHER_LIBRARY_FOLDERS if os.path.isdir(f) and not os.path.islink(f)]
    return tuple(folders)


@functools.lru_cache(maxsize=8)
def interpreter_files(python: str) -> InterpreterFiles:
    """What `python` needs inside the worker's root (its real path; asked of it unless it is this interpreter)."""
    python = os.path.realpath(python)
    facts = _this_interpreter() if python == os.path.realpath(sys.executable) else _ask(python)
    if facts is None:  # not an interpreter we can ask (a test's stand-in): its folder's parent, as a prefix
        prefix = os.path.dirname(os.path.dirname(python))
        return InterpreterFiles(python, prefix, (), library_folders(""), ())
    stdlib = os.path.realpath(str(facts["stdlib"]))
    extra = [os.path.realpath(str(facts[key])) for key in ("dynload", "shared") if facts.get(key)]
    extra = [p for p in extra if os.path.exists(p) and not _under_any(p, [stdlib])]
    libraries = library_folders(str(facts.get("multiarch", "")))
    bound = [*libraries, stdlib]
    packages = facts.get("packages")
    candidates = [os.path.realpath(str(p)) for p in packages] if isinstance(packages, list) else []
    candidates += [os.path.join(stdlib, name) for name in _PACKAGE_FOLDERS]
    for folder in libraries:  # other Pythons' folders in a library folder bound whole (/usr/lib on Arch, Fedora)
        try:
            entries = os.listdir(folder)
        except OSError:
            continue
        candidates += [os.path.join(folder, e) for e in entries if e.startswith("python") and
                       os.path.isdir(os.path.join(folder, e)) and not _under_any(stdlib, [os.path.join(folder, e)])]
    hidden = sorted({p for p in candidates if os.path.isdir(p) and _under_any(p, bound)})
    return InterpreterFiles(python, stdlib, tuple(extra), libraries, tuple(hidden))
