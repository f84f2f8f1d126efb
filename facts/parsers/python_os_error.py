"""Python's OSError message with an errno, in any program's output (a traceback's last line, a
launcher's or pip's report of it), so it is looked for anywhere in a file.

CPython (Objects/exceptions.c, ``OSError_str``) writes ``[Errno %S] %S: %R -> %R`` for a call
on two files, ``[Errno %S] %S: %R`` for one, ``[Errno %S] %S`` for none (``errno``, ``strerror``,
then ``repr()`` of the file names); a traceback prints it after the exception's class and ": ".
Sample lines (real, from the public threads named)::

    OSError: [Errno 28] No space left on device    (NVIDIA/Megatron-LM#878, its title: a docker container without --shm-size)
    OSError: [Errno 28] No space left on device    (babysor/MockingBird#774: torch.save of a checkpoint onto a full disk)
    ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device    (Tkd-Alex/Twitch-Channel-Points-Miner-v2#460: pip in a container)

The same errno from a Rust extension (safetensors' serializer, tokenizers) reaches Python as its
own exception quoting Rust's ``std::io::Error`` (its ``Debug`` form ``Os { code: %d, kind: %s,
message: %s }``, library/std/src/io/error/repr_*.rs); read the same way, the exception being
the Python class in front (``SafetensorError``)::

    safetensors_rust.SafetensorError: Error while serializing: IoError(Os { code: 30, kind: ReadOnlyFilesystem, message: "Read-only file system" })    (huggingface/text-generation-inference#756)
    bug: Error while serializing: IoError(Os { code: 28, kind: StorageFull, message: "No space left on device" })    (bentoml/OpenLLM#754, its title: safetensors' variant, the class left out)

and its ``Display`` form, ``<strerror> (os error <code>)``, quoted by the Python exception or printed by a Rust
program's main after ``Error: ``, the errno named from the strerror text::

    RuntimeError: Address already in use (os error 98)    (meta-pytorch/torchft#30: torchft_lighthouse's port taken)

PyTorch's shared-memory allocator (aten/src/ATen/MapAllocator.cpp) raises a RuntimeError of its own that quotes
strerror and the errno: ``"unable to write to file <", filename_, ">: ", str_error(errno), " (", errno, ")"`` (the
one byte it writes to size a new segment; ``resize``/``stretch`` for the ftruncate before it). torch.multiprocessing
and the DataLoader's workers share tensors through POSIX shared-memory objects named ``/torch_<pid>_<random>_<n>``
(shm_open: a file in /dev/shm), so ENOSPC there is a full /dev/shm. Read as the same fact (the exception
``RuntimeError``, the object's name as the file, under /dev/shm)::

    RuntimeError: unable to write to file </torch_8289_606636967_0>: No space left on device (28)    (MIC-DKFZ/nnUNet#2162: nnU-Net's background workers died)

Before it quoted errno the allocator said only which file (TH/THAllocator.c's ``THError("unable to write to file
<%s>", ctx->filename)``, THError adding `` at <file>:<line>``; then ATen MapAllocator.cpp's ``AT_ERROR("unable to
write to file <", filename_, ">")``), after the same one-byte ``write(fd, "", 1)`` into the new segment: on a
tmpfs that write fails when no page is left (ENOSPC), so it is read as the same fact with no errno (``errno`` and
``strerror`` None)::

    RuntimeError: unable to write to file </torch_1394_2747491098>    (pangeo-data/pangeo-docker-images#258: a hub's small /dev/shm)
    RuntimeError: unable to write to file </torch_76_3625483894> at /pytorch/aten/src/TH/THAllocator.c:383    (huaweicloud/dls-example#26)

TensorFlow reports a failed call on a file in its own form (tensorflow/core/platform/errors.cc, later
tsl/platform/errors.cc: ``IOError(context, errno)`` makes ``<context>; <strerror>``, the context the file's name),
after the status' code or class or the message that reports it; read as the same fact, the class the code's
(``IOError`` where a message reports it), the errno from the strerror text (the errors of calls on files)::

    UnknownError: drive/Colab Notebooks/saved_model/model.ckpt-313.data-00000-of-00001.tempstate17496649906120132702; Input/output error    (theamrzaki/text_summurization_abstractive_methods#2)
    2018-06-12 15:00:32,553 INFO (Thread-4-2183) Error reported to Coordinator: /dbfs/FileStore/tables/TFOS/trainData/checkpoint.tmpb97208e81436466b80430829067e21d8; Input/output error    (tensorflow/tensorflow#20090)

Facts: ``python_os_error`` per line: the exception's class, the errno and its name (Linux
numbering), the strerror text, the file when named, whether it lies under /dev/shm and whether it is a
device or kernel file (EIO on ``'/dev/ttyS11'``, pyserial opening a port: the device's driver, not storage), and, for
EEXIST, whether a mkdir told to accept an existing directory raised it (``mkdir_exist_ok``: os.makedirs or Path.mkdir
with exist_ok=True, the traceback's last frame and the call above it). What the
error means depends on that file and the rest of the paste (rules/host/no_space_left_*.yaml read
ENOSPC: a full /dev/shm); an errno no rule reads stays an unexplained error. A warning that
quotes an OSError (``UserWarning: [Errno 28] ...``) is no error of its own and is not read. Empty
input, or no such line: nothing.
"""
from __future__ import annotations

import errno as _errno
import os as _os
import re

from stethoscope.facts.kinds.host import PythonOsError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines

KIND = "python_os_error"

# OSError: [Errno 28] No space left on device
# FileNotFoundError: [Errno 2] No such file or directory: '/dev/shm/nccl-abc'       (CPython's one-file form filled in)
# OSError: [Errno 18] Invalid cross-device link: '/a' -> '/b'                       (its two-file form)
#   the text ends at a character that is no blank (nor the sentence's dot): a lazy text tried the line's end after
#   each blank of a long run before the last word, scanning the run each time (bench/redos.py, session 19: 1.5 s at
#   120,000 characters); the same answers on every real line of fixtures/, tests/ and the dev corpus, and on 20,000
#   mutated ones
# OSError: [Errno 107] Transport endpoint is not connected: '/opt/airflow/logbucket/dag_id=xxx/run_id=scheduled__2023-07-31T00:00:00+00:00/task_id=begin_drop_day_driving_table'"
#   (GoogleCloudPlatform/gcs-fuse-csi-driver#50: the message as a logger quoted it, one closing quote after it)
#  OSError: [Errno 107] Transport endpoint is not connected: b'/output/lgy/log/3/events.out.tfevents.1720755089 .trainingjob-a12175629749448704103746-task2-0.13.0'
#   (yandex-cloud/k8s-csi-s3#124, a TensorBoard event file on an s3 FUSE mount: a file named by bytes, whose %R is b'...')
OS_ERROR = re.compile(
    r"\b(?P<exc>[A-Za-z_][\w.]{0,80}(?:Error|Exception)): \[Errno (?P<num>\d{1,4})\] (?P<text>[^\n:'\"]{0,199}[^\s:'\".])"
    r"(?:: b?(?P<q>['\"])(?P<file>[^\n'\"]{0,1000})(?P=q)(?: -> b?['\"][^\n'\"]{0,1000}['\"])?)?\.?['\"]?[ \t]*\r?$", re.M)
# safetensors_rust.SafetensorError: Error while serializing: IoError(Os { code: 28, kind: StorageFull, message: "No space left on device" })
RUST_OS_ERROR = re.compile(r"\bOs \{ code: (?P<num>\d{1,4}), kind: \w{1,40}, message: \"(?P<text>[^\"\n]{1,200})\" \}")
# Rust's io::Error Display form (library/std/src/io/error.rs, impl Display for Error: write!(fmt, "{detail} (os error
# {code})"), detail the C library's strerror of the code), as the Python exception a Rust extension raises quotes it, or
# as a Rust program's main prints its error ("Error: {err:?}", anyhow's Debug being the Display chain) at a line's start:
# RuntimeError: Address already in use (os error 98)        (meta-pytorch/torchft#30: torchft_lighthouse's default port taken)
# Error: Address already in use (os error 98)               (axelarnetwork/tofnd#268: a second tofnd on the host)
#   the strerror text names the errno where it is the C library's (macOS numbers EADDRINUSE 48): read from the text
RUST_OS_DISPLAY = re.compile(r"(?P<text>[A-Z][A-Za-z' /-]{2,99}[a-z]) \(os error (?P<num>\d{1,5})\)")
_LEADING_ERROR = re.compile(r"^[ \t]*Error: ")
#   the Python exception that quotes it, in the line before it (a rank or logger prefix may precede), or safetensors'
#   own error variant around it ("IoError(Os {"): one of them required, as a Rust program's own log line printing an
#   io::Error (a warning, a retry) is no exception
# RuntimeError: unable to write to file </torch_8289_606636967_0>: No space left on device (28)     (MIC-DKFZ/nnUNet#2162)
#   (MapAllocator.cpp's "unable to write to file <%s>: %s (%d)"; "unable to resize file <%s> to the right size: %s (%d)"
#   and "unable to stretch file <...> to the right size: ..." the same way); only a torch shared-memory object's name
#   (/torch_..., shm_open's: a file in /dev/shm), a named file (torch.from_file) is another matter
TORCH_SHM_ERROR = re.compile(
    r"\b(?P<exc>RuntimeError): unable to (?:write to|resize|stretch) file <(?P<file>/torch_[\w.-]{1,100})>"
    r"(?: to the right size)?: (?P<text>[^\n():]{1,200}[^\s():]) \((?P<num>\d{1,4})\)")
# RuntimeError: unable to write to file </torch_1394_2747491098>                                             (pangeo-data/pangeo-docker-images#258)
# RuntimeError: unable to write to file </torch_76_3625483894> at /pytorch/aten/src/TH/THAllocator.c:383    (huaweicloud/dls-example#26)
#   (the allocator before it quoted errno: THAllocator.c's THError("unable to write to file <%s>", ...) with THError's
#   " at %s:%d", MapAllocator.cpp's AT_ERROR("unable to write to file <", filename_, ">"); "unable to resize file <%s>
#   to the right size" and "unable to stretch file <%s> to the right size" the same way); nothing else may follow on
#   the line, a quoted name in prose is no error line
TORCH_SHM_ERROR_NO_ERRNO = re.compile(
    r"\b(?P<exc>RuntimeError): unable to (?:write to|resize|stretch) file <(?P<file>/torch_[\w.-]{1,100})>"
    r"(?: to the right size)?(?: at [^\s<>]{1,300}:\d{1,6})?[ \t]*\r?$", re.M)
# TensorFlow's file-system errors (tensorflow/core/platform/errors.cc, later tsl/platform/errors.cc: IOError(context,
# err_number) makes "StrCat(context, "; ", strerror(err_number))", the context the file's name; its posix_file_system
# passes the file for a failed open, read, write, close, stat or rename), after the status' code or class, or the
# message that reports it (the strerror texts of the calls on files only: Linux glibc's):
# 2019-04-24 03:30:02.313101: W tensorflow/core/framework/op_kernel.cc:1401] OP_REQUIRES failed at save_restore_v2_ops.cc:137 : Unknown: output/result_dir/model.ckpt-11000_temp_14deb76b392641039027fcde01faa942/part-00000-of-00001.data-00000-of-00001.tempstate15913268613058786132; Input/output error   (ProHiryu/bert-chinese-ner#22)
# UnknownError: drive/Colab Notebooks/saved_model/model.ckpt-313.data-00000-of-00001.tempstate17496649906120132702; Input/output error   (theamrzaki/text_summurization_abstractive_methods#2: a Colab Drive mount)
# 2018-06-12 15:00:32,553 INFO (Thread-4-2183) Error reported to Coordinator: /dbfs/FileStore/tables/TFOS/trainData/checkpoint.tmpb97208e81436466b80430829067e21d8; Input/output error   (tensorflow/tensorflow#20090)
# Unknown: dataset-train.tfrecord-00011-of00032; Input/output error      (tensorflow/tensorflow#50824; the op's "[[{{node ...}}]]" may follow)
#   (the name holds no ':' nor ';': Windows' "Failed to rename: a to: b : Access is denied.\n; Input/output error" is not read)
_FILE_ERRNOS = (_errno.EIO, _errno.ENOSPC, _errno.EDQUOT, _errno.EROFS, _errno.ENOTCONN, _errno.ESTALE, _errno.EACCES,
                _errno.EPERM, _errno.ENOENT, _errno.EEXIST, _errno.ENOTDIR, _errno.EISDIR, _errno.ENAMETOOLONG,
                _errno.EMFILE, _errno.ENFILE, _errno.EFBIG, _errno.EXDEV, _errno.EBUSY, _errno.ENOTEMPTY, _errno.ETXTBSY)
_STRERROR = {_os.strerror(n): n for n in _FILE_ERRNOS}
TF_IO_ERROR = re.compile(
    r"(?:\b(?P<exc>[A-Za-z][\w.]{0,80})|\bError reported to Coordinator|\bError recorded from \w{1,40}): "
    r"(?P<file>[^\s:;'\"][^\n:;'\"]{0,999}); (?P<text>" + "|".join(re.escape(t) for t in sorted(_STRERROR)) + r")"
    r"(?=[ \t]*(?:\[|\.?\r?$))", re.M)
# asyncio's create_server (CPython Lib/asyncio/base_events.py: OSError(err.errno, 'error while attempting to bind on
# address %r: %s' % (sa, err.strerror.lower()))), raised, or logged by the server running it (uvicorn: logger.error(exc)):
# ERROR (uvicorn.error):  [Errno 98] error while attempting to bind on address ('0.0.0.0', 7878): address already in use   (wandb/openui#226)
# ERROR:    [Errno 10048] error while attempting to bind on address ('0.0.0.0', 8080): only one usage of each socket address (protocol/network address/port) is normally permitted   (Windows: WSAEADDRINUSE)
ASYNCIO_BIND = re.compile(r"\[Errno (?P<num>\d{1,5})\] error while attempting to bind on address (?P<addr>\([^()\n]{1,300}\)): "
                          r"(?P<text>[a-z][^\n]{0,200}[^\s.])\.?[ \t]*\r?$", re.M)
# gRPC core's OS error (src/core/lib/iomgr/error.cc grpc_os_error: its description strerror(err), "OS Error" in releases
# before 1.10 or so, its ints and strings errno, os_error (strerror(err)) and syscall), as the JSON of a status that
# refers to it is printed (grpc_error_string, keys in order: created, description, errno, fd, file, file_line, os_error,
# syscall), a server that could not add its port logging "No address added out of total 1 resolved" above it (Ray's
# raylet and GCS, any gRPC C-core server, grpcio's):
# ...,"referenced_errors":[{"created":"@1605884262.976499568","description":"Address already in use","errno":98,"file":"ex   (ray-project/ray#12206, a terminal's wrap)
# ...,"file_line":181,"os_error":"Address already in use","syscall":"bind"}]},{"created":"@1605884262.976523014",...       (the same, its next row)
#   the errno with the strerror before it (the description) or after it (os_error, within the same object), the text a
#   C library strerror (Linux glibc's; "OS Error" is no text); a key split by the wrap is not read
GRPC_OS_ERROR = re.compile(
    r'"description":"(?!OS Error")(?P<text>[A-Z][A-Za-z\' /-]{2,99}[a-z])","errno":(?P<num>\d{1,5})\b'
    r'|"errno":(?P<num2>\d{1,5}),[^{}\[\]\n]{0,600}?"os_error":"(?P<text2>[A-Z][A-Za-z\' /-]{2,99}[a-z])"')
# and on Windows (grpc_wsa_error: "OS Error", os_error FormatMessage's text, syscall, wsa_error, keys in the same order):
# ...{"created":"@1534772342.561000000","description":"OS Error","file":"src/core/lib/iomgr/tcp_server_windows.cc","file_line":201,"os_error":"Only one usage of each socket address (protocol/network address/port) is normally permitted.\r\n","syscall":"bind","wsa_error":10048}   (grpc/grpc#16422)
#   the message is in the system's language: the Winsock code says it (10048 WSAEADDRINUSE, 10049 WSAEADDRNOTAVAIL)
GRPC_WSA_ERROR = re.compile(r'"os_error":"(?P<text>[^"\n]{1,300}?)(?:\\r\\n)?","syscall":"\w{1,40}","wsa_error":(?P<num>\d{1,5})\b')
# gRPC core's OS error as releases since absl::Status replaced grpc_error print it (src/core/lib/gprpp/status_helper.cc
# StatusToString: "<CODE>:<message> {<key>:<value>, ..., children:[<child>, ...]}", an int bare, a string quoted;
# grpc_os_error's status is UNKNOWN with strerror(err) as its message and the keys created_time (file and file_line
# before it in a build with debug locations), errno, os_error, syscall), the innermost child of a server's "No address
# added out of total 1 resolved for '<address>'" (Ray's raylet, GCS and core workers, grpcio's servers):
# UNKNOWN:Address already in use {created_time:"2026-06-07T09:28:00.406193870+00:00", errno:98, os_error:"Address already in use", syscall:"bind"}
#   (CONSTRUCTED from StatusToString and grpc_os_error: no even thread's paste of it was found; a Ray crash analysis in
#   the code corpus quotes it re-wrapped as "UNKNOWN:Address already in use {errno:98, os_error:\"Address already in use\", syscall:\"bind\"}")
#   the errno and the strerror within one object, a blank or the brace before each key (the JSON form's quoted keys are
#   GRPC_OS_ERROR's)
GRPC_STATUS_OS_ERROR = re.compile(
    r'[ {]errno:(?P<num>\d{1,5}),[^{}\[\]\n]{0,600}?[ {]os_error:"(?P<text>[A-Z][A-Za-z\' /-]{2,99}[a-z])"')
# and gRPC's EventEngine listener (its posix tcp_socket_utils: absl::StrCat("Error in bind: ", std::strerror(errno)) as
# an absl::InternalError, FAILED_PRECONDITION in the 1.5x releases), a child of the same server status, no errno in it:
# `E1116 21:34:56.431768483      17 chttp2_server.cc:1051]                UNKNOWN:No address added out of total 1 resolved for 'unix-abstract:grpc_fullstack_test.%00.17.974.661825339.14468088171934000544.7442035989947845277' {created_time:"2023-11-16T21:34:56.431729283+00:00", children:[FAILED_PRECONDITION:Error in bind: Address already in use]}
#   (grpc/grpc#35004, a test's flake); the status code in front makes it gRPC's ("Error in bind: " alone is many programs')
GRPC_EE_ERROR = re.compile(r"\b(?:FAILED_PRECONDITION|INTERNAL|UNKNOWN):Error in (?:bind|listen): "
                           r"(?P<text>[A-Z][A-Za-z' /-]{2,99}[a-z])(?=[\]},]|[ \t]*\r?$)")
#: Winsock's codes that are a POSIX errno's (Windows' OSError.errno for a socket call)
_WINSOCK = {10048: "EADDRINUSE", 10049: "EADDRNOTAVAIL"}
_RAISED = re.compile(r"\b(?P<exc>[A-Za-z_][\w.]{0,80}(?:Error|Exception)): ")
_MARK = re.compile(r"\[Errno \d|\"errno\":\d|[ {]errno:\d|:Error in (?:bind|listen): |\"wsa_error\":\d|\bOs \{ code: \d| \(os error \d|file </torch_|[^\s;]; (?:" + "|".join(re.escape(t) for t in sorted(_STRERROR)) + ")")


def detect(head: str) -> bool:
    return ("[Errno " in head and (OS_ERROR.search(head) or ASYNCIO_BIND.search(head)) is not None) or (
        "file </torch_" in head and (TORCH_SHM_ERROR.search(head) or TORCH_SHM_ERROR_NO_ERRNO.search(head)) is not None) or (
        "Os { code: " in head and any(_rust_error(line) for line in head.splitlines() if "Os { code: " in line)) or (
        " (os error " in head and any(_rust_error(line) for line in head.splitlines() if " (os error " in line)) or (
        any(k in head for k in _GRPC_KEYS) and any(_grpc_error(line) for line in head.splitlines()
                                                   if any(k in line for k in _GRPC_KEYS))) or (
        "; " in head and TF_IO_ERROR.search(head) is not None)


#: literals one of gRPC's OS error forms above holds
_GRPC_KEYS = ('"errno":', '"wsa_error":', "errno:", ":Error in bind: ", ":Error in listen: ")
_BY_STRERROR = {_os.strerror(n): n for n in sorted(_errno.errorcode)}
_BY_STRERROR_LOWER = {text.lower(): n for text, n in _BY_STRERROR.items()}


def _rust_error(line: str) -> tuple[str, re.Match[str]] | None:
    """(the Python exception's class, the io::Error match) of a line quoting Rust's OS error, else None."""
    if (m := RUST_OS_ERROR.search(line)) is None:
        if (m := RUST_OS_DISPLAY.search(line)) is None or m["text"] not in _BY_STRERROR:
            return None
        if (e := _RAISED.search(line, 0, m.start())) is not None:
            return e["exc"].rsplit(".", 1)[-1], m
        return ("Error", m) if _LEADING_ERROR.match(line) else None
    if (e := _RAISED.search(line, 0, m.start())) is not None:
        return e["exc"].rsplit(".", 1)[-1], m
    return ("IoError", m) if line.endswith("IoError(", 0, m.start()) else None


def _grpc_error(line: str) -> tuple[int | None, str, str] | None:
    """(errno, strerror, errno name) of gRPC core's OS error on a line, else None: a strerror text the C library has
    (named from it: the number is the platform's, macOS numbers EADDRINUSE 48; the EventEngine's form gives none), or a
    Winsock code that is a POSIX errno's."""
    for m in GRPC_OS_ERROR.finditer(line):
        text = m["text"] or m["text2"]
        if text in _BY_STRERROR:
            return int(m["num"] or m["num2"]), text, _errno.errorcode[_BY_STRERROR[text]]
    if "errno:" in line:
        for m in GRPC_STATUS_OS_ERROR.finditer(line):
            if m["text"] in _BY_STRERROR:
                return int(m["num"]), m["text"], _errno.errorcode[_BY_STRERROR[m["text"]]]
    if ":Error in " in line and (e := GRPC_EE_ERROR.search(line)) is not None and e["text"] in _BY_STRERROR:
        return None, e["text"], _errno.errorcode[_BY_STRERROR[e["text"]]]
    if (w := GRPC_WSA_ERROR.search(line)) is not None and int(w["num"]) in _WINSOCK:
        return int(w["num"]), w["text"].strip(), _WINSOCK[int(w["num"])]
    return None


# a FileExistsError from a mkdir told to accept an existing directory (CPython Lib/os.py makedirs: "try: mkdir(name, mode)
# except OSError: if not exist_ok or not path.isdir(name): raise"; pathlib Path.mkdir: "if not exist_ok or not
# self.is_dir(): raise"): the traceback's last frame, and the caller's line above it (real, NVIDIA-NeMo/Automodel#3686,
# a run on virtiofs killed at step 297/300):
# [rank8]:     os.makedirs(directory, exist_ok=True)
# [rank8]:   File "<frozen os>", line 225, in makedirs
# [rank8]: FileExistsError: [Errno 17] File e
_MKDIR_FRAME = re.compile(r'\bFile "[^"\n]{1,1000}", line \d{1,7}, in (?:makedirs|mkdir)[ \t]*\r?$')
_FRAME = re.compile(r'\bFile "[^"\n]{1,1000}", line \d{1,7}, in ')


def _mkdir_exist_ok(lines: list[str], n: int) -> bool:
    """The exception line ``n`` (1-based) ends a traceback whose last frame is os.makedirs' or Path.mkdir's, called
    with exist_ok=True within the 12 lines above (recursion into makedirs' parents included)."""
    window = lines[max(0, n - 13):n - 1]
    frames = [i for i, line in enumerate(window) if _FRAME.search(line)]
    if not frames or not _MKDIR_FRAME.search(window[frames[-1]]):
        return False
    return any("exist_ok=True" in line for i, line in enumerate(window[:frames[-1]]) if i not in frames)


def _device_file(filename: str | None) -> bool:
    """A device node or kernel file ('/dev/nvidia0', '/dev/ttyS11', a /sys or /proc entry), not a file on storage."""
    return filename is not None and filename.startswith(("/dev/", "/sys/", "/proc/")) and not filename.startswith("/dev/shm/")


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, line in iter_lines(_MARK, artefact):
        m = OS_ERROR.search(line)
        if not m and (g := _grpc_error(line)) is not None:
            result.lines_used += 1
            fb.add(PythonOsError, n, exception="gRPC OS Error", errno=g[0], errno_name=g[2], strerror=g[1], filename=None,
                   on_dev_shm=False)
            continue
        if not m and (t := ASYNCIO_BIND.search(line)) is not None:
            result.lines_used += 1
            num = int(t["num"])
            named = _WINSOCK.get(num) or _errno.errorcode.get(_BY_STRERROR_LOWER.get(t["text"], num))
            exc = _RAISED.search(line, 0, t.start())
            fb.add(PythonOsError, n, exception=exc["exc"].rsplit(".", 1)[-1] if exc else "OSError", errno=num,
                   errno_name=named, strerror=t["text"], filename=None, on_dev_shm=False)
            continue
        if not m and (t := TORCH_SHM_ERROR.search(line)) is not None:
            result.lines_used += 1
            num = int(t["num"])
            fb.add(PythonOsError, n, exception=t["exc"], errno=num, errno_name=_errno.errorcode.get(num),
                   strerror=t["text"].strip(), filename=t["file"], on_dev_shm=True)
            continue
        if not m and (t := TORCH_SHM_ERROR_NO_ERRNO.search(line)) is not None:
            result.lines_used += 1
            fb.add(PythonOsError, n, exception=t["exc"], errno=None, errno_name=None, strerror=None,
                   filename=t["file"], on_dev_shm=True)
            continue
        if not m and (t := TF_IO_ERROR.search(line)) is not None:
            result.lines_used += 1
            num, filename = _STRERROR[t["text"]], t["file"].strip()
            fb.add(PythonOsError, n, exception=(t["exc"] or "IOError").rsplit(".", 1)[-1], errno=num,
                   errno_name=_errno.errorcode.get(num), strerror=t["text"], filename=filename,
                   on_dev_shm=filename.startswith("/dev/shm/"), on_device_file=_device_file(filename))
            continue
        if not m:
            if (rust := _rust_error(line)) is None:
                continue
            exc, m = rust
            result.lines_used += 1
            num = int(m["num"])
            named = _BY_STRERROR.get(m["text"], num)  # the Display form's text names the errno on any platform
            fb.add(PythonOsError, n, exception=exc, errno=num, errno_name=_errno.errorcode.get(named),
                   strerror=m["text"].strip(), filename=None, on_dev_shm=False)
            continue
        result.lines_used += 1
        num, filename = int(m["num"]), m["file"]
        # the strerror text names the errno where it is the C library's and the number is another platform's (macOS's
        # "OSError: [Errno 48] Address already in use", Linux's 98; asweigart/whatismyip#2), else the number
        named = _BY_STRERROR.get(m["text"].strip(), num)
        fb.add(PythonOsError, n, exception=m["exc"].rsplit(".", 1)[-1], errno=num, errno_name=_errno.errorcode.get(named),
               strerror=m["text"].strip(), filename=filename,
               on_dev_shm=filename is not None and filename.startswith("/dev/shm/"),
               on_device_file=_device_file(filename),
               mkdir_exist_ok=num == _errno.EEXIST and _mkdir_exist_ok(artefact.lines, n))
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"(?:Error|Exception): \[Errno \d+\] ", r"\bOs \{ code: \d+, kind: ", r"[a-z] \(os error \d+\)",
              r"\[Errno \d+\] error while attempting to bind on address \(", r'"errno":\d+[,}]', r'"wsa_error":\d+[,}]',
              r'[ {]errno:\d+, ', r"(?:FAILED_PRECONDITION|INTERNAL|UNKNOWN):Error in (?:bind|listen): [A-Z]",
              r"RuntimeError: unable to (?:write to|resize|stretch) file </torch_",
              r"[^\s;]; (?:Input/output error|No space left on device|Disk quota exceeded|Read-only file system"
              r"|Transport endpoint is not connected|Stale file handle|Permission denied|Operation not permitted"
              r"|No such file or directory|File exists|Not a directory|Is a directory|File name too long"
              r"|Too many open files(?: in system)?|File too large|Invalid cross-device link|Device or resource busy"
              r"|Directory not empty|Text file busy)")
