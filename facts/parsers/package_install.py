"""A package install that failed, as dpkg, apt and DKMS print it (``apt install nvidia-driver-<branch>``,
``dpkg --configure -a``, ``dpkg -i <file>.deb``, ``dkms install nvidia/<version>``): the driver whose kernel
module did not build, a package script that failed, a package left unconfigured.

The forms, from the tools' own sources:

- dpkg (src/main/errors.c print_error_perpackage ``dpkg: error processing package %s (--%s):`` and, for a
  .deb, ``error processing archive %s (--%s):``, then the reason indented by one space; src/main/script.c
  / subproc.c ``installed %s package post-installation script subprocess returned error exit status %d``;
  src/main/configure.c ``dependency problems - leaving unconfigured`` and ``dependency problems prevent
  configuration of %s:``; src/main/archives.c ``trying to overwrite '%.250s', which is also in package
  %.250s %.250s``; src/main/errors.c reportbroken_retexitstatus ``Errors were encountered while
  processing:`` then one package or file a line);
- apt (apt-pkg/deb/dpkgpm.cc ``Sub-process %s returned an error code (%u)``, printed ``E: ...``);
- DKMS (dkms's ``die 10 "Bad return status for module build on kernel: $kernelver ($arch)" "Consult
  $build_dir/make.log for more information."``, printed ``Error! ...``; its check for the kernel's build tree,
  ``Your kernel headers for kernel $kernelver cannot be found ...``, in each release's wording: see _HEADERS);
- the NVIDIA driver's own build (kernel-open/conftest.sh module_symvers_sanity_check, run by its Kbuild: ``The
  Module.symvers file is missing, or does not contain any`` / ``symbols exported from the kernel. This could cause
  the NVIDIA`` ..., then make's ``*** [.../Kbuild:NNN: module_symvers_sanity_check] Error 1``): the kernel's
  build tree lacks the symbol list of the running kernel, the module is not built.

Sample content (pop-os/beta#310: nvidia-dkms-390 on a kernel the 390 branch does not build on)::

    Building initial module for 5.15.2-76051502-generic
    ERROR (dkms apport): kernel package linux-headers-5.15.2-76051502-generic is not supported
    Error! Bad return status for module build on kernel: 5.15.2-76051502-generic (x86_64)
    Consult /var/lib/dkms/nvidia/390.144/build/make.log for more information.
    dpkg: error processing package nvidia-dkms-390 (--configure):
     installed nvidia-dkms-390 package post-installation script subprocess returned error exit status 10
    dpkg: dependency problems prevent configuration of nvidia-driver-390:
     nvidia-driver-390 depends on nvidia-dkms-390 (<= 390.144-1); however:
      Package nvidia-dkms-390 is not configured yet.

Facts: one ``package_install_failed`` per package that failed for a reason of its own: ``step`` (dpkg's
``--configure`` ...), ``reason`` script_failed (``exit_status``), file_conflict, other; a DKMS build error
just before a package's failure is that failure's cause (``reason`` build_failed, ``module``,
``module_version``, ``kernel``; evidence the DKMS line); a DKMS build error with no package after it is a
fact of its own (``tool`` dkms, the module as package); so is a compiler's error in the NVIDIA driver's DKMS build tree
(``/var/lib/dkms/nvidia-current/418.74/build/common/inc/nv-linux.h:733:21: error: ...``, its make.log pasted: the
driver's source did not compile against the kernel), one a module version, DKMS's own line after it its end. A package left unconfigured because one it
depends on failed (``dependency``) and one named only under ``Errors were encountered while processing:``
(``listed``) are facts only where the paste shows no package's own failure (a paste cut before it: still
a failed install, never read as nothing). apt's ``E: Sub-process /usr/bin/dpkg returned an error code``
is a fact (``tool`` apt, no package) only where nothing else is. ``nvidia_driver``: the NVIDIA driver's own
package (:mod:`debian_packages`' names, and Debian's nvidia-kernel-dkms) or DKMS module (nvidia,
nvidia-current). The progress lines of dpkg, apt and DKMS around them (``Setting up``, ``Unpacking``,
``Building initial module for``, ``Loading new ... DKMS files...``, dkms apport's note that it files no
report for the kernel ...) count as read, no fact. A successful install gives nothing (this reader is not
asked: its signatures are the failure lines). Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import PackageInstallFailed
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.debian_packages import driver_package

KIND = "package_install"

# dpkg: error processing package nvidia-dkms-390 (--configure):                         (pop-os/beta#310)
# dpkg: error processing package nvidia-driver (--configure):                           (NVIDIA/open-gpu-kernel-modules#188)
# dpkg: error processing archive %s (--%s):                                             (dpkg src/main/errors.c, a .deb)
_ERROR = re.compile(r"^dpkg: error processing (?:package (?P<pkg>[a-z0-9][a-z0-9+.:-]{0,120})|archive (?P<archive>\S{1,400}))"
                    r" \(--(?P<step>[a-z-]{2,20})\):\s*$")
# the reason under it, one space in:
#  installed nvidia-dkms-390 package post-installation script subprocess returned error exit status 10   (pop-os/beta#310)
#  new %s package pre-installation script subprocess returned error exit status %d                        (dpkg's format)
_SCRIPT = re.compile(r"^\s{0,4}\S[^\n]{0,300}? script subprocess (?:returned error exit status (?P<rc>\d{1,3})|was killed by signal\b)")
#  dependency problems - leaving unconfigured                                                              (pop-os/beta#310)
_DEPENDS_LEFT = re.compile(r"^\s{0,4}dependency problems - leaving unconfigured\s*$")
#  trying to overwrite '%.250s', which is also in package %.250s %.250s                                   (dpkg src/main/archives.c)
_OVERWRITE = re.compile(r"^\s{0,4}trying to overwrite '[^'\n]{1,300}', which is also in package ")
# dpkg: dependency problems prevent configuration of nvidia-driver-390:                 (pop-os/beta#310)
_PREVENT = re.compile(r"^dpkg: dependency problems prevent (?:configuration|removal) of (?P<pkg>[a-z0-9][a-z0-9+.:-]{0,120}):\s*$")
#  nvidia-driver-390 depends on nvidia-dkms-390 (<= 390.144-1); however:               (pop-os/beta#310)
#   Package nvidia-dkms-390 is not configured yet.
#   Package nvidia-kernel-dkms which provides nvidia-kernel-515.43.04 is not configured yet.   (NVIDIA/open-gpu-kernel-modules#188)
#   Package nvidia-kernel-open-dkms is not installed.
_DEPENDS_DETAIL = re.compile(r"^\s{1,6}(?:\S{1,120} (?:pre-)?depends on [^\n]{1,600}; however:"
                             r"|Package \S{1,120} (?:which provides \S{1,120} )?is not (?:configured yet|installed)\.)\s*$")
# Errors were encountered while processing:                                             (pop-os/pop#1338)
#  bcmwl-kernel-source
_ERRORS_WERE = re.compile(r"^Errors were encountered while processing:\s*$")
# nvidia-peer-memory-dkms          (Mellanox/nv_peer_memory#80: the paste lost the leading space)
_LISTED = re.compile(r"^\s{0,4}(?P<item>[a-z0-9/.][\w+.:/~-]{0,300})\s*$")
# E: Sub-process /usr/bin/dpkg returned an error code (1)                               (NVIDIA/open-gpu-kernel-modules#188)
_APT = re.compile(r"^E: Sub-process \S{0,200}dpkg returned an error code \((?P<rc>\d{1,3})\)\s*$")
# Error! Bad return status for module build on kernel: 5.15.2-76051502-generic (x86_64)   (pop-os/beta#310)
_DKMS_BUILD = re.compile(r"^Error! Bad return status for module build on kernel: (?P<kernel>\S{1,120}) \((?P<arch>[\w-]{1,20})\)\s*$")
# Consult /var/lib/dkms/nvidia/390.144/build/make.log for more information.             (pop-os/beta#310)
_DKMS_CONSULT = re.compile(r"^Consult \S{0,200}/(?P<module>[\w.+-]{1,80})/(?P<version>[\w.+~-]{1,80})/build/make\.log for more information\.\s*$")
# DKMS's check for the kernel's build tree (dkms's check_module_args / prepare_kernel: "Your kernel headers for kernel
# $kernelver cannot be found ..."), in each release's words, its first line:
# Error! Your kernel headers for kernel 3.5.0-26-generic cannot be found.                                  (dkms 2.2, Ubuntu:
#   then "Please install the linux-headers-3.5.0-26-generic package," / "or use the --kernelsourcedir option to tell DKMS where it's located")
# Error! Your kernel headers for kernel 2.6.38-02063801-generic cannot be found at                         (dkms 2.x upstream:
#   then "/lib/modules/2.6.38-02063801-generic/build or /lib/modules/2.6.38-02063801-generic/source.")
# Error! echo  /  Your kernel headers for kernel 3.10.33-1-lts cannot be found at                          (dkms 2.8's "echo" slip:
#   the message on its own line after "Error! echo")
# Failed to run `/usr/sbin/dkms build -m nvidia -v 440.64 -k 3.10.0-957.el7.x86_64`: Error! Echo Your kernel headers for
#   kernel 3.10.0-957.el7.x86_64 cannot be found at /lib/modules/3.10.0-957.el7.x86_64/build or ... (nvidia-installer running dkms)
# Error! Your kernel headers for kernel linux-headers-6.19.6-tkg-bore cannot be found at /lib/modules/linux-headers-6.19.6-tkg-bore/build
#   or /lib/modules/linux-headers-6.19.6-tkg-bore/source.                                                 (dkms 3.x; Frogging-Family/linux-tkg#1186)
#   then "Please install the linux-headers-<kernel> package or use the --kernelsourcedir option to tell DKMS where it's located"
_HEADERS = re.compile(r"^(?:Failed to run `(?P<cmd>[^`\n]{1,500})`: )?"
                      r"(?:Error! (?:[Ee]cho )?)?Your kernel headers for kernel (?P<kernel>\S{1,120}) cannot be found\b[^\n]{0,400}$")
# the dkms command's module and version (nvidia-installer's "Failed to run `/usr/sbin/dkms build -m nvidia -v 440.64 -k ...`")
_CMD_MODULE = re.compile(r" -m (?P<module>[\w.+-]{1,80})(?: -v (?P<version>[\w.+~-]{1,80}))?")
# its other lines, read with no fact:
# Please install the linux-headers-3.5.0-26-generic package,   or use the --kernelsourcedir option to tell DKMS where it's located
# /lib/modules/2.6.38-02063801-generic/build or /lib/modules/2.6.38-02063801-generic/source.   Error! echo
_HEADERS_MORE = re.compile(r"^(?:Please install the \S{1,200} package[^\n]{0,200}|(?:or )?(?:You can )?use the --kernelsourcedir option to tell DKMS"
                           r" where it's located\.?|\S{0,40}/modules/\S{1,120}/build or \S{0,40}/modules/\S{1,120}/source\.|Error! [Ee]cho)\s*$")
# the NVIDIA driver's conftest.sh (module_symvers_sanity_check, run by its Kbuild: 430 on; kernel-open/conftest.sh of the
# open modules), printed into the build's make.log:
# The Module.symvers file is missing, or does not contain any                 (Tk-Glitch/PKGBUILDS#414: 435.27.08 on 5.4.2)
# symbols exported from the kernel. This could cause the NVIDIA
# kernel modules to be built against a configuration that does
# not accurately reflect the actual target kernel.
# The Module.symvers file check can be disabled by setting the
# environment variable IGNORE_MISSING_MODULE_SYMVERS to 1.
# make[2]: *** [/var/lib/dkms/nvidia/435.27.08/build/Kbuild:181: module_symvers_sanity_check] Error 1
_SYMVERS = re.compile(r"^The Module\.symvers file is missing, or does not contain any\s*$")
_SYMVERS_MORE = re.compile(r"^(?:symbols exported from the kernel\. This could cause the NVIDIA|kernel modules to be built against a "
                           r"configuration that does|not accurately reflect the actual target kernel\.|The Module\.symvers file check"
                           r" can be disabled by setting the|environment variable IGNORE_MISSING_MODULE_SYMVERS to 1\.)\s*$")
# the NVIDIA driver's build tree a make.log names: DKMS's (/var/lib/dkms/nvidia/435.27.08/build) or the .run installer's
# (/tmp/selfgz31129/NVIDIA-Linux-x86_64-390.46/kernel)
_NV_TREE = re.compile(r"/var/lib/dkms/(?P<module>nvidia(?:-current|-srv|-open)?)/(?P<version>\d[\w.+~-]{0,79})/build\b"
                      r"|/NVIDIA-Linux-[\w]{1,20}-(?P<run>\d[\w.]{0,40}?)(?:-[a-z][\w-]{0,30})?/kernel\b")
# make's failure lines of that tree's build:   make[2]: *** [/var/lib/dkms/nvidia/435.27.08/build/Kbuild:181: module_symvers_sanity_check] Error 1
#   make[1]: *** [Makefile:1652: /var/lib/dkms/nvidia/435.27.08/build] Error 2        make: *** [Makefile:81: modules] Error 2
_MAKE_ERROR = re.compile(r"^make(?:\[\d{1,3}\])?: \*\*\* \[[^\]\n]{1,400}\] Error \d{1,3}\s*$")
# a compiler's error in the NVIDIA driver's DKMS build tree, as its make.log (or dkms build -v) shows it: kbuild builds
# an external module by its full path (M=/var/lib/dkms/<module>/<version>/build), so gcc names the file so (the driver's
# source did not compile against this kernel: a kernel newer than the branch supports):
# /var/lib/dkms/nvidia-current/418.74/build/common/inc/nv-linux.h:733:21: error: void value not ignored as it ought to be
#   (linux-surface/linux-surface#52: Debian's 418.74 on kernel 5.3.18)
# /var/lib/dkms/nvidia/530.30.02/build/nvidia/os-mlock.c:42:9: error: implicit declaration of function 'follow_pfn'   (CONSTRUCTED)
# Another module's tree (bbswitch, v4l2loopback) is not the driver's: left to the unrecognised-text reader
_DKMS_CC_ERROR = re.compile(r"^/var/lib/dkms/(?P<module>nvidia(?:-current|-srv|-open)?)/(?P<version>[\w.+~-]{1,80})/build/"
                            r"\S{1,300}?:\d{1,6}(?::\d{1,4})?: (?:fatal )?error: \S[^\n]{0,400}$")
# dpkg's, apt's and DKMS's progress, read with no fact:
# Setting up bcmwl-kernel-source (6.30.223.271+bdcom-0ubuntu5) ...                      (pop-os/pop#1338)
# Unpacking nvidia-peer-memory-dkms (1.1-0) ...   Preparing to unpack .../nvidia-peer-memory-dkms_1.1-0_all.deb ...   (Mellanox/nv_peer_memory#80)
# Selecting previously unselected package nvidia-peer-memory-dkms.   (Reading database ... 249155 files and directories currently installed.)
# Processing triggers for libc-bin (2.36-9+deb12u7) ...                                 (dpkg's "Processing triggers for %s (%s) ...")
# Removing old bcmwl-6.30.223.271+bdcom DKMS files...   Loading new bcmwl-6.30.223.271+bdcom DKMS files...   (pop-os/pop#1338)
# Deleting module version: 6.30.223.271+bdcom   completely from the DKMS tree.   ------------------------------   Done.
# Building for 5.8.0-7625-generic   Building for architecture x86_64   Building initial module for 5.8.0-7625-generic
# ERROR (dkms apport): kernel package linux-headers-5.8.0-7625-generic is not supported   (dkms's apport hook: it files no report)
# Building module:   Cleaning build area...   Sign command: /usr/lib/modules/6.4.1-zen1-1-zen/build/scripts/sign-file   (NVIDIA/open-gpu-kernel-modules#526)
# Signing key: /var/lib/dkms/mok.key   Public certificate (MOK): /var/lib/dkms/mok.pub
# 'make' -j8 IGNORE_PREEMPT_RT_PRESENCE=1 NV_EXCLUDE_BUILD_MODULES='__EXCLUDE_MODULES' KERNEL_UNAME=6.4.1-zen1-1-zen modules.......................(bad exit status: 2)
# Reading package lists... Done   Building dependency tree... Done   Reading state information... Done   (#188: without "Done")
# 0 upgraded, 0 newly installed, 0 to remove and 0 not upgraded.   4 not fully installed or removed.
# After this operation, 0 B of additional disk space will be used.   cuda-drivers is already the newest version (515.43.04-1).
# No apport report written because the error message indicates its a followup error from a previous failure.   (pop-os/beta#310's run)
# Secure Boot not enabled on this system.   Running module version sanity check.   depmod...   DKMS: install completed.   (Mellanox/nv_peer_memory#80)
_PROGRESS = re.compile(
    r"^(?:(?:Setting up|Unpacking|Preparing to unpack|Processing triggers for) \S{1,300} [^\n]{0,300}\.\.\."
    r"|Selecting previously unselected package \S{1,200}\.|\(Reading database \.\.\. [^\n]{0,120}\)"
    r"|(?:Removing old|Loading new) \S{1,200} DKMS files\.\.\.|Deleting module version: \S{1,80}|completely from the DKMS tree\."
    r"|-{10,80}|Done\.|Building (?:initial module )?for (?:architecture )?\S{1,120}"
    r"|ERROR \(dkms apport\): kernel package \S{1,200} is not supported|Building module:|Cleaning build area\.{1,4}"
    r"|Sign command: \S{1,300}|Signing key: \S{1,300}|Public certificate \(MOK\): \S{1,300}"
    r"|'make' [^\n]{0,600}\(bad exit status: \d{1,3}\)"
    r"|(?:Reading package lists|Building dependency tree|Reading state information)\.\.\.(?: Done)?"
    r"|\d{1,6} upgraded, \d{1,6} newly installed, [^\n]{0,100} not upgraded\.|\d{1,6} not fully installed or removed\."
    r"|After this operation, [^\n]{0,100} disk space will be (?:used|freed)\.|\S{1,200} is already the newest version \([^\n]{0,120}\)\."
    r"|No apport report written because [^\n]{0,300}|Secure Boot not enabled on this system\.|Running module version sanity check\."
    r"|depmod\.{3}|DKMS: install completed\.)\s*$")
_DETECT = re.compile(r"^dpkg: error processing (?:package|archive) \S|^Errors were encountered while processing:|"
                     r"Your kernel headers for kernel \S{1,120} cannot be found\b|^The Module\.symvers file is missing, or does not contain any|"
                     r"^Error! Bad return status for module build on kernel: |^E: Sub-process \S{0,200}dpkg returned an error code"
                     r"|^/var/lib/dkms/nvidia(?:-current|-srv|-open)?/[\w.+~-]{1,80}/build/\S{1,300}?:\d{1,6}(?::\d{1,4})?: (?:fatal )?error: ",
                     re.M)
#: the NVIDIA driver's DKMS module: nvidia (Ubuntu's, NVIDIA's repository), nvidia-current (Debian's)
_DRIVER_MODULE = re.compile(r"^nvidia(?:-current|-srv|-open)?$")
#: Debian's names of the driver's kernel module packages (debian_packages' _DRIVER has Ubuntu's and NVIDIA's)
_DEBIAN_DRIVER = re.compile(r"^nvidia-(?:kernel|open-kernel|kernel-open)-dkms$")
_STEPS = {"configure": "configure", "install": "install", "unpack": "unpack", "remove": "remove", "purge": "purge"}


def detect(head: str) -> bool:
    return any(s in head for s in ("dpkg: error processing ", "Errors were encountered", "Bad return status", "E: Sub-process ",
                                   "/var/lib/dkms/nvidia", "Your kernel headers for kernel", "The Module.symvers file is missing")) \
        and _DETECT.search(head) is not None


def _package(item: str) -> str:
    """A package name from dpkg's word for it: ``nvidia-dkms-390``, ``libfoo:amd64``, a .deb's path (its name before ``_``)."""
    if item.endswith(".deb") or "/" in item:
        item = item.rsplit("/", 1)[-1].split("_", 1)[0]
    return item.split(":", 1)[0]


def _is_driver(package: str | None, module: str | None) -> bool:
    return bool((package and (driver_package(package) or _DEBIAN_DRIVER.match(package)))
                or (module and _DRIVER_MODULE.match(module)))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    own: dict[str, dict] = {}  # package -> its own failure (first one)
    depending: dict[str, int] = {}  # package -> line: left unconfigured for a dependency
    listed: dict[str, int] = {}  # package -> line under "Errors were encountered while processing:"
    dkms: list[dict] = []  # DKMS build errors not yet taken by a package's failure
    apt: tuple[int, int] | None = None
    errors_were: int | None = None  # the line of "Errors were encountered while processing:"
    open_error: dict | None = None  # a dpkg error line waiting for its reason
    in_list = False
    seq = 0  # non-blank lines so far: how near two lines are (a terminal's cut rows, joined, leave blank rows behind)
    for n, line in enumerate(artefact.lines, 1):
        if not line.strip():
            in_list = False
            continue
        seq += 1
        if open_error is not None and (line[:1] in " \t" or _SCRIPT.match(line) or _DEPENDS_LEFT.match(line)
                                       or _OVERWRITE.match(line)):
            # the reason, one space in (a paste may lose the space: Mellanox/nv_peer_memory#80's
            # "installed nvidia-peer-memory-dkms package post-installation script subprocess returned error exit status 1")
            err, open_error = open_error, None
            result.lines_used += 1
            if (m := _SCRIPT.match(line)) is not None:
                err.update(reason="script_failed", exit_status=int(m["rc"]) if m["rc"] else None, message=line.strip())
            elif _DEPENDS_LEFT.match(line) is not None:
                err["reason"] = "dependency"
            elif _OVERWRITE.match(line) is not None:
                err.update(reason="file_conflict", message=line.strip())
            else:
                err["message"] = line.strip()
            _settle(err, own, depending, dkms)
            continue
        if open_error is not None:  # no reason line: the paste ends the error there
            _settle(open_error, own, depending, dkms)
            open_error = None
        if in_list and (m := _LISTED.match(line)) is not None:
            listed.setdefault(_package(m["item"]), n)
            result.lines_used += 1
            continue
        in_list = False
        if (m := _ERROR.match(line)) is not None:
            open_error = {"line": n, "seq": seq, "package": _package(m["pkg"] or m["archive"]), "step": _STEPS.get(m["step"], "other"),
                          "reason": "other", "exit_status": None, "message": line.strip()}
            result.lines_used += 1
        elif (m := _DKMS_BUILD.match(line)) is not None:
            if dkms and dkms[-1].get("cc") and dkms[-1]["kernel"] is None:  # the same build's end, after its compiler error
                dkms[-1].update(line=n, seq=seq, kernel=m["kernel"], text=f"{line.strip()} ({dkms[-1]['text']})", cc=False)
            else:
                dkms.append({"line": n, "seq": seq, "kernel": m["kernel"], "module": None, "version": None, "text": line.strip()})
            result.lines_used += 1
        elif (m := _DKMS_CC_ERROR.match(line)) is not None:
            # the make.log's compiler error: the build's failure where DKMS's own line is not pasted (one a module version)
            if not any(d["module"] == m["module"] and d["version"] == m["version"] for d in dkms):
                dkms.append({"line": n, "seq": seq, "kernel": None, "module": m["module"], "version": m["version"],
                             "text": line.strip(), "cc": True})
            result.lines_used += 1
        elif (m := _HEADERS.match(line)) is not None:
            # DKMS cannot build any module for that kernel: the module is the command's (-m) or a Consult line's after it
            cmd = _CMD_MODULE.search(m["cmd"]) if m["cmd"] else None
            dkms.append({"line": n, "seq": seq, "kernel": m["kernel"], "module": cmd["module"] if cmd else None,
                         "version": cmd["version"] if cmd else None, "text": line.strip()})
            result.lines_used += 1
        elif (m := _SYMVERS.match(line)) is not None:
            # the NVIDIA driver's own check (its next line says so): the module of the tree the make.log names
            nxt = next((ln for ln in artefact.lines[n:n + 2] if ln.strip()), "")
            if "NVIDIA" in nxt:
                tree = next((t for ln in artefact.lines if (t := _NV_TREE.search(ln)) is not None), None)
                module = (tree["module"] or "nvidia") if tree is not None else "nvidia"
                version = (tree["version"] or tree["run"]) if tree is not None else None
                dkms.append({"line": n, "seq": seq, "kernel": None, "module": module, "version": version,
                             "text": f"{line.strip()} {nxt.strip()}", "cc": True})
                result.lines_used += 1
        elif (_HEADERS_MORE.match(line) is not None or _SYMVERS_MORE.match(line) is not None
              or (_MAKE_ERROR.match(line) is not None and any(d.get("cc") for d in dkms))):
            result.lines_used += 1
        elif (m := _DKMS_CONSULT.match(line)) is not None:
            if dkms and dkms[-1]["module"] is None and seq - dkms[-1]["seq"] <= 2:
                dkms[-1].update(module=m["module"], version=m["version"])
            result.lines_used += 1
        elif (m := _PREVENT.match(line)) is not None:
            depending.setdefault(_package(m["pkg"]), n)
            result.lines_used += 1
        elif _ERRORS_WERE.match(line) is not None:
            in_list = True
            errors_were = errors_were or n
            result.lines_used += 1
        elif (m := _APT.match(line)) is not None:
            apt = apt or (n, int(m["rc"]))
            result.lines_used += 1
        elif _DEPENDS_DETAIL.match(line) is not None or _PROGRESS.match(line) is not None:
            result.lines_used += 1
    if open_error is not None:
        _settle(open_error, own, depending, dkms)
    for err in own.values():
        fields = {k: err.get(k) for k in ("package", "module", "module_version", "kernel", "exit_status")}
        fb.add(PackageInstallFailed, err["line"], tool="dpkg", step=err["step"], reason=err["reason"], message=err["message"],
               nvidia_driver=_is_driver(err["package"], err.get("module")), **fields)
    for d in dkms:  # a module build that no package's failure followed (dkms install, a paste cut after it)
        fb.add(PackageInstallFailed, d["line"], tool="dkms", package=d["module"], module=d["module"], module_version=d["version"],
               kernel=d["kernel"], step="build", reason="build_failed", nvidia_driver=_is_driver(None, d["module"]),
               message=d["text"])
    if not own and not dkms:  # a paste without any package's own failure: what it shows failed is still a failure
        for pkg, line in depending.items():
            fb.add(PackageInstallFailed, line, tool="dpkg", package=pkg, step="configure", reason="dependency",
                   nvidia_driver=_is_driver(pkg, None), message=artefact.lines[line - 1].strip())
        for pkg, line in listed.items():
            if pkg not in depending:
                fb.add(PackageInstallFailed, line, tool="dpkg", package=pkg, reason="listed",
                       nvidia_driver=_is_driver(pkg, None), message=artefact.lines[line - 1].strip())
        if apt is not None and not depending and not listed:
            fb.add(PackageInstallFailed, apt[0], tool="apt", reason="other", exit_status=apt[1],
                   message=artefact.lines[apt[0] - 1].strip())
        elif errors_were is not None and not depending and not listed:  # the list's head alone: its packages cut off
            fb.add(PackageInstallFailed, errors_were, tool="dpkg", reason="listed", message=artefact.lines[errors_were - 1].strip())
    return result


def _settle(err: dict, own: dict[str, dict], depending: dict[str, int], dkms: list[dict]) -> None:
    """A dpkg error with its reason: a dependency's is the other package's failure; a package's own takes the DKMS
    build error just before it (its maintainer script ran the build)."""
    pkg = err["package"]
    if err["reason"] == "dependency":
        depending.setdefault(pkg, err["line"])
        return
    if dkms and err["seq"] - dkms[-1]["seq"] <= 4:
        d = dkms.pop()  # the message: DKMS's line (it names the kernel), then the script's exit
        err.update(line=d["line"], reason="build_failed", module=d["module"], module_version=d["version"], kernel=d["kernel"],
                   message=f"{d['text']}; {err['message']}")
    own.setdefault(pkg, err)


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
