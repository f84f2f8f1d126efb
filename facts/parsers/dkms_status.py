"""``dkms status`` and DKMS's own errors about its tree: which module versions DKMS built or
installed for which kernel, and a module version DKMS can no longer read.

Commands: ``dkms status`` (any dkms, 2.x to 3.x), and any dkms command that reads a module's
``dkms.conf``. Sample content (negativo17/nvidia-driver#56, Fedora 28, dkms 2.x: a stale
``/var/lib/dkms/nvidia/390.48`` left by a removed driver stopped ``dkms status`` and the
autoinstall of every new kernel; removing it and reinstalling gave the last line)::

    #dkms status
    nvidia, 396.45, 4.17.11-200.fc28.x86_64, x86_64: installed
    $ dkms status
    Error! Could not locate dkms.conf file.
    File: /var/lib/dkms/nvidia/390.48/source/dkms.conf does not exist.
    nvidia, 396.45, 4.17.14-202.fc28.x86_64, x86_64: installed (original_module exists)

dkms 3.x writes ``<module>/<version>`` instead of ``<module>, <version>`` (deepin-community/kernel#2144:
``nvidia-current/580.119.02, 6.18.48-amd64-desktop-rolling, x86_64: installed``).

The forms, from dkms's own source (github.com/dell/dkms, ``dkms.in``; v2.5 and v2.8.8 for 2.x):
``do_status``: ``echo "$m, $v: $status"`` (2.x) / ``echo "$m/$v: $status"`` (2.8 on) for added and
broken, ``echo -n "$m, $v, $k, $a: $status"`` / ``"$m/$v, $k, $a: $status"`` for built and installed,
then ``module_status_built_extra``'s notes (``(original_module exists)``, ``(WARNING! Missing some built
modules!)``, ``(WARNING! Diff between built and installed module!)``; 3.1 on ``(Original modules exist)``,
``(Built modules are missing in the kernel modules folder)``, ``(Differences between built and installed
modules)``); ``do_status_weak``: ``"$m, $v, $k, $a: installed-weak from $kern"``. ``read_conf``: ``die 4
"Could not locate dkms.conf file." "File: $read_conf_file does not exist."`` (``error()`` prints
``Error! `` before the first string). 3.x ``do_status`` for a broken module: ``error "$m/$v: Missing the
module source directory or the symbolic link pointing to it." "Manual intervention is required!"``.

Facts: ``dkms_module_status`` per status line; ``dkms_tree_broken`` once per module version DKMS
cannot read (the ``Error!`` line, the ``File:`` line under it, a ``broken`` status line and 3.x's
error about it are one fact, at the first of them). The command lines count as read. Empty input:
nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import DkmsModuleStatus, DkmsTreeBroken
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "dkms_status"

# nvidia, 396.45, 4.17.14-202.fc28.x86_64, x86_64: installed (original_module exists)       (negativo17/nvidia-driver#56)
# nvidia-current/580.119.02, 6.18.48-amd64-desktop-rolling, x86_64: installed                (deepin-community/kernel#2144)
# nvidia/390.48: added            nvidia/390.48: broken          foo, 1.0, 5.4.0-1-amd64, x86_64: installed-weak from 5.4.0
#   (a version begins with a digit; the kernel and arch have no comma or blank; bounded runs, no nesting)
_STATUS = re.compile(
    r"^[ \t]*(?P<m>[A-Za-z0-9][\w.+-]{0,63})(?:, |/)(?P<v>\d[\w.+~:-]{0,63})"
    r"(?:, (?P<k>[^\s,]{1,128}), (?P<a>[\w-]{1,20}))?: (?P<state>added|built|installed-weak|installed|broken)\b"
    r"(?P<rest>[^\n]{0,300})$", re.M)
# Error! Could not locate dkms.conf file.                                                     (negativo17/nvidia-driver#56)
_CONF_MISSING = re.compile(r"^[ \t]*Error! Could not locate dkms\.conf file\.[ \t]*$", re.M)
# File: /var/lib/dkms/nvidia/390.48/source/dkms.conf does not exist.                          (negativo17/nvidia-driver#56)
_FILE_MISSING = re.compile(r"^[ \t]*File: (?P<path>/\S{1,300}/dkms\.conf) does not exist\.[ \t]*$", re.M)
# Error! nvidia/390.48: Missing the module source directory or the symbolic link pointing to it.   (dkms 3.x do_status)
_SOURCE_MISSING = re.compile(
    r"^[ \t]*Error! (?P<m>[A-Za-z0-9][\w.+-]{0,63})/(?P<v>\d[\w.+~:-]{0,63}): Missing the module source directory", re.M)
# Manual intervention is required!   (the second string of the 3.x error)
_MANUAL = "Manual intervention is required!"
# $ dkms status      #dkms status      root@host:~# dkms status -m nvidia
_COMMAND = re.compile(r"(?:^|[#$>]\s*)(?:sudo\s+)?dkms\s+status\b[^\n]{0,200}$")
# the module and version in a dkms.conf path: /var/lib/dkms/<module>/<version>/source/dkms.conf (the tree),
# /usr/src/<module>-<version>/dkms.conf (the source DKMS adds from)
_TREE_PATH = re.compile(r"/var/lib/dkms/(?P<m>[^/\s]{1,64})/(?P<v>[^/\s]{1,64})/source/dkms\.conf$")
_SRC_PATH = re.compile(r"/usr/src/(?P<m>[^/\s]{1,64})-(?P<v>\d[^/\s-]{0,63})/dkms\.conf$")


def detect(head: str) -> bool:
    return ((": " in head and _STATUS.search(head) is not None)
            or ("dkms.conf" in head and (_CONF_MISSING.search(head) is not None or _FILE_MISSING.search(head) is not None))
            or ("Missing the module source directory" in head and _SOURCE_MISSING.search(head) is not None))


def _module_of(path: str) -> tuple[str | None, str | None]:
    m = _TREE_PATH.search(path) or _SRC_PATH.search(path)
    return (m["m"], m["v"]) if m else (None, None)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    lines = artefact.lines
    seen: set[tuple[str | None, str | None]] = set()
    pending_conf: int | None = None  # an "Error! Could not locate dkms.conf file." line waiting for its File: line

    def broken(n: int, module: str | None, version: str | None, path: str | None, form: str, message: str) -> None:
        key = (module, version)
        if module is not None and key in seen:
            return
        seen.add(key)
        b.add(DkmsTreeBroken, n, module=module, version=version, path=path, form=form, message=message)

    for n, line in enumerate(lines, 1):
        if pending_conf is not None and not line.strip():
            continue
        if "dkms.conf" in line and _CONF_MISSING.match(line):
            if pending_conf is not None:
                broken(pending_conf, None, None, None, "conf_missing", lines[pending_conf - 1].strip())
            pending_conf = n
            result.lines_used += 1
            continue
        if pending_conf is not None:
            f = _FILE_MISSING.match(line)
            if f:
                module, version = _module_of(f["path"])
                broken(pending_conf, module, version, f["path"],
                       "conf_missing", lines[pending_conf - 1].strip() + " " + line.strip())
                result.lines_used += 1
                pending_conf = None
                continue
            broken(pending_conf, None, None, None, "conf_missing", lines[pending_conf - 1].strip())
            pending_conf = None
        if "does not exist." in line and (f := _FILE_MISSING.match(line)):
            module, version = _module_of(f["path"])
            broken(n, module, version, f["path"], "conf_missing", line.strip())
            result.lines_used += 1
            continue
        if "Missing the module source directory" in line and (s := _SOURCE_MISSING.match(line)):
            broken(n, s["m"], s["v"], None, "source_missing", line.strip())
            result.lines_used += 1
            continue
        if line.strip() == _MANUAL:
            result.lines_used += 1
            continue
        if ": " in line and (m := _STATUS.match(line)):
            rest = m["rest"].strip()
            notes = rest or None
            if m["state"] == "installed-weak" and rest.startswith("from "):
                notes = rest
            b.add(DkmsModuleStatus, n, module=m["m"], version=m["v"], kernel=m["k"], arch=m["a"], state=m["state"],
                  notes=notes)
            if m["state"] == "broken":
                broken(n, m["m"], m["v"], None, "source_missing", line.strip())
            result.lines_used += 1
            continue
        if "dkms" in line and _COMMAND.search(line):
            result.lines_used += 1
    if pending_conf is not None:
        broken(pending_conf, None, None, None, "conf_missing", lines[pending_conf - 1].strip())
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_STATUS, _CONF_MISSING, _FILE_MISSING, _SOURCE_MISSING)
