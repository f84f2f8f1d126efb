"""python_os_error: CPython's OSError message with an errno, anywhere in a file."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import python_os_error
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/python_os_error"


def parse_text(text: str):
    return python_os_error.parse(Artefact(path="t.log", text=text, node="node1"))


@pytest.mark.parametrize("name,line", [("megatron878_enospc_title.txt", 1), ("mockingbird774_torch_save_enospc.txt", 6)])
def test_enospc_without_a_file(name, line):
    text = (FIX / name).read_text()
    assert python_os_error.detect(text)
    got = [(f.evidence.line, f.exception, f.errno, f.errno_name, f.strerror, f.filename, f.on_dev_shm)
           for f in parse_text(text).facts]
    assert got == [(line, "OSError", 28, "ENOSPC", "No space left on device", None, False)]


@pytest.mark.parametrize("text,want", [
    # CPython's one-file and two-file forms, a subclass, behind a rank prefix
    ("FileNotFoundError: [Errno 2] No such file or directory: '/dev/shm/nccl-abc'\n",
     [("FileNotFoundError", "ENOENT", "/dev/shm/nccl-abc", True)]),
    ("[rank0]: OSError: [Errno 18] Invalid cross-device link: '/a' -> '/b'\r\n", [("OSError", "EXDEV", "/a", False)]),
    # pip's report of it (Tkd-Alex/Twitch-Channel-Points-Miner-v2#460)
    ("ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device\n",
     [("OSError", "ENOSPC", None, False)]),
    # a warning that quotes one (joblib falling back to serial mode), and the errno without an exception: not read
    ("UserWarning: [Errno 28] No space left on device.  joblib will operate in serial mode\n", []),
    ("write failed: [Errno 28] No space left on device\n", []),
])
def test_forms(text, want):
    got = [(f.exception, f.errno_name, f.filename, f.on_dev_shm) for f in parse_text(text).facts]
    assert got == want


@pytest.mark.parametrize("name,want", [
    # safetensors' serializer quoting Rust's std::io::Error: behind the Python exception, or inside its IoError variant alone
    ("tgi756_safetensors_readonly_fs.txt", [("SafetensorError", 30, "EROFS", "Read-only file system")]),
    ("openllm754_safetensors_storagefull_title.txt", [("IoError", 28, "ENOSPC", "No space left on device")]),
    ("caduceus58_dataloader_worker_start_emfile.txt", [("OSError", 24, "EMFILE", "Too many open files")]),
])
def test_rust_io_error_and_emfile(name, want):
    text = (FIX / name).read_text()
    assert python_os_error.detect(text)
    assert [(f.exception, f.errno, f.errno_name, f.strerror) for f in parse_text(text).facts] == want


def test_a_rust_programs_own_io_error_line_is_not_an_exception():
    text = 'WARN retrying: Os { code: 2, kind: NotFound, message: "No such file or directory" }\n'
    assert not python_os_error.detect(text)
    assert parse_text(text).facts == []


@pytest.mark.parametrize("text,want", [
    # EIO on a device file (pyserial opening a port, a traceback saved in a public repository): the device's driver
    ("OSError: [Errno 5] Input/output error: '/dev/ttyS11'\n", True),
    # EIO on files of a dataset or checkpoint (MIC-DKFZ/nnUNet#1784, whwu95/Text4Vis#6): storage
    ("OSError: [Errno 5] Input/output error: '/media/project/nnUNet/nnUNet_preprocessed/Dataset002_CCTA_3D/"
     "nnUNetPlans_3d_fullres/L0550_RCA_sagital.pkl'\n", False),
    ("FileNotFoundError: [Errno 2] No such file or directory: '/dev/shm/nccl-abc'\n", False),
    ("OSError: [Errno 5] Input/output error\n", False),
])
def test_device_file(text, want):
    (fact,) = parse_text(text).facts
    assert fact.errno_name == ("EIO" if fact.errno == 5 else fact.errno_name)
    assert fact.on_device_file is want


def test_torch_shared_memory_object_enospc():
    # MapAllocator.cpp's "unable to write to file <%s>: %s (%d)" on a /torch_ shm object (MIC-DKFZ/nnUNet#2162)
    text = (FIX / "nnunet2162_torch_shm_enospc.txt").read_text()
    assert python_os_error.detect(text)
    got = [(f.evidence.line, f.exception, f.errno, f.errno_name, f.strerror, f.filename, f.on_dev_shm)
           for f in parse_text(text).facts]
    assert got == [(3, "RuntimeError", 28, "ENOSPC", "No space left on device", "/torch_8289_606636967_0", True),
                   (15, "RuntimeError", 28, "ENOSPC", "No space left on device", "/torch_8226_3581395585_0", True)]


@pytest.mark.parametrize("text", [
    # a file torch.from_file named is no shared-memory object; MapAllocator's Windows form quotes no errno
    "RuntimeError: unable to write to file </data/cache/feats.bin>: No space left on device (28)\n",
    "RuntimeError: unable to write to file </torch_76_3625483894>; error code: <112>\n",
])
def test_torch_map_allocator_near_misses(text):
    assert parse_text(text).facts == []


@pytest.mark.parametrize("name,want", [
    # ATen MapAllocator's errno-less form (pangeo-data/pangeo-docker-images#258) and TH's with THError's
    # " at <file>:<line>" (huaweicloud/dls-example#26): the shm object's name, no errno
    ("pangeo258_bus_error_and_shm_write_mixed.txt", [(10, "/torch_1394_2747491098")]),
    ("dlsexample26_thallocator_write_no_errno.txt", [(1, "/torch_76_3625483894")]),
])
def test_torch_shared_memory_object_without_errno(name, want):
    text = (FIX / name).read_text()
    assert python_os_error.detect(text)
    facts = parse_text(text).facts
    assert [(f.evidence.line, f.filename) for f in facts] == want
    assert all((f.exception, f.errno, f.errno_name, f.strerror, f.on_dev_shm) == ("RuntimeError", None, None, None, True)
               for f in facts)


@pytest.mark.parametrize("text", [
    # the name quoted inside a sentence (MIC-DKFZ/nnUNet#398's comment), a named file, a line cut after the name
    "and now it is showing the `RuntimeError: unable to write to file </torch_28907_4020605154>` so sounds like\n",
    "RuntimeError: unable to write to file </data/cache/feats.bin>\n",
    "RuntimeError: unable to write to file </torch_\n",
])
def test_torch_shared_memory_object_without_errno_near_misses(text):
    assert parse_text(text).facts == []


def test_enotconn_quoted_by_a_logger():
    # the message closed by the logger's quote (GoogleCloudPlatform/gcs-fuse-csi-driver#50)
    text = (FIX / "gcsfusecsi50_enotconn_mkdir.txt").read_text()
    (fact,) = parse_text(text).facts
    assert (fact.evidence.line, fact.errno_name, fact.on_device_file) == (4, "ENOTCONN", False)
    assert fact.filename.startswith("/opt/airflow/logbucket/dag_id=xxx/")


def test_enotconn_on_a_file_named_by_bytes():
    # a bytes path, whose repr CPython's OSError_str prints as b'...' (yandex-cloud/k8s-csi-s3#124: TensorBoard's event file)
    text = (FIX / "k8scsis3_124_enotconn_bytes_path.txt").read_text()
    (fact,) = parse_text(text).facts
    assert (fact.evidence.line, fact.errno_name, fact.on_device_file) == (1, "ENOTCONN", False)
    assert fact.filename.startswith("/output/lgy/log/3/events.out.tfevents.")
    # CONSTRUCTED: the two-file form with bytes names, and a bytes path under /dev/shm
    (fact,) = parse_text("OSError: [Errno 18] Invalid cross-device link: b'/a' -> b'/b'\n").facts
    assert fact.filename == "/a"
    (fact,) = parse_text("OSError: [Errno 28] No space left on device: b'/dev/shm/x'\n").facts
    assert fact.on_dev_shm


@pytest.mark.parametrize("name,want", [
    # TensorFlow's IOError form "<file>; <strerror>" (tensorflow/core/platform/errors.cc IOError), after the status'
    # code (C++ op log, the Python class) or the message that reports it (the coordinator's, the estimator's)
    ("bertchinesener22_tf_savev2_eio.txt", [(1, "Unknown", "EIO"), (2, "IOError", "EIO")]),
    ("textsumm2_tf_colab_drive_checkpoint_eio.txt", [(18, "UnknownError", "EIO")]),
    ("tf20090_coordinator_dbfs_checkpoint_eio.txt", [(10, "IOError", "EIO")]),
])
def test_tensorflow_io_error_on_a_named_file(name, want):
    text = (FIX / name).read_text()
    assert python_os_error.detect(text)
    facts = parse_text(text).facts
    assert [(f.evidence.line, f.exception, f.errno_name) for f in facts] == want
    assert all(f.strerror == "Input/output error" and f.errno == 5 and f.filename and ".tempstate" in f.filename
               or f.filename.startswith("/dbfs/") for f in facts)


def test_tensorflow_io_error_file_name_with_a_blank():
    # a Colab Drive mount's folder "Colab Notebooks" (theamrzaki/text_summurization_abstractive_methods#2)
    (f,) = parse_text((FIX / "textsumm2_tf_colab_drive_checkpoint_eio.txt").read_text()).facts
    assert f.filename == "drive/Colab Notebooks/saved_model/model.ckpt-313.data-00000-of-00001.tempstate17496649906120132702"


def test_tensorflow_io_error_windows_rename_not_read():
    # Windows' rename message (tensorflow/tensorflow#41380, a comment quoting it): the names hold ':' and the strerror
    # starts a line of its own after the Windows message; not read
    text = ("> tensorflow.python.framework.errors_impl.UnknownError: Failed to rename: path\\trial_5a095c02600a30dc086a9efe046b1272"
            "\\checkpoints\\epoch_0\\checkpoint_temp/part-00000-of-00001.data-00000-of-00001 to: path\\trial_5a095c02600a30dc086a9efe046b1272"
            "\\checkpoints\\epoch_0\\checkpoint.data-00000-of-00001 : Access is denied.\n> ; Input/output error [Op:MergeV2Checkpoints]\n")
    assert parse_text(text).facts == []


# a FileExistsError from a mkdir told to accept an existing directory (os.makedirs / Path.mkdir with exist_ok=True):
# the traceback's last frame and the call above it (wild sweep rP8)
_MAKEDIRS = ('Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n    os.makedirs("out")\n'
             '  File "/usr/lib/python3.10/os.py", line 225, in makedirs\n    mkdir(name, mode)\n'
             "FileExistsError: [Errno 17] File exists: 'out'\n")  # CONSTRUCTED: CPython's traceback form


def test_file_exists_from_makedirs_exist_ok():
    # real: NVIDIA-NeMo/Automodel#3686, behind torchrun's "[rank8]:" labels, the exception line cut inside its text
    facts = parse_text((FIX / "automodel3686_makedirs_exist_ok_file_exists_virtiofs.txt").read_text()).facts
    assert [(f.exception, f.errno_name, f.mkdir_exist_ok, f.evidence.line) for f in facts] == [("FileExistsError", "EEXIST", True, 15)]
    assert [f.mkdir_exist_ok for f in parse_text(_MAKEDIRS.replace('makedirs("out")', 'makedirs("out", exist_ok=True)')).facts] == [True]
    # pathlib's Path.mkdir, the 3.11 traceback's caret line under the call (CONSTRUCTED)
    pathlib_form = ('  File "save.py", line 9, in save\n    Path(d).mkdir(parents=True, exist_ok=True)\n    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
                    '  File "/usr/lib/python3.11/pathlib.py", line 1116, in mkdir\n    os.mkdir(self, mode)\n'
                    "FileExistsError: [Errno 17] File exists: '/ckpt/step_100'\n")
    assert [(f.mkdir_exist_ok, f.filename) for f in parse_text(pathlib_form).facts] == [(True, "/ckpt/step_100")]


def test_file_exists_not_from_a_mkdir_accepting_one():
    # makedirs without exist_ok: the program's own "directory exists"; exist_ok=True in a frame that is not the last;
    # another errno from a makedirs(exist_ok=True)
    assert [f.mkdir_exist_ok for f in parse_text(_MAKEDIRS).facts] == [False]
    other = _MAKEDIRS.replace('os.makedirs("out")', 'os.makedirs("out", exist_ok=True)').replace(
        '  File "/usr/lib/python3.10/os.py", line 225, in makedirs\n    mkdir(name, mode)\n',
        '  File "/usr/lib/python3.10/shutil.py", line 571, in copytree\n    os.symlink(a, b)\n')
    assert [f.mkdir_exist_ok for f in parse_text(other).facts] == [False]
    eacces = _MAKEDIRS.replace('os.makedirs("out")', 'os.makedirs("out", exist_ok=True)').replace(
        "FileExistsError: [Errno 17] File exists", "PermissionError: [Errno 13] Permission denied")
    assert [f.mkdir_exist_ok for f in parse_text(eacces).facts] == [False]
    assert [f.mkdir_exist_ok for f in parse_text("FileExistsError: [Errno 17] File exists: 'out'\n").facts] == [False]


@pytest.mark.parametrize("name,want", [
    # gRPC core's OS error JSON: wrapped by a terminal (the errno beside the description), cut after the errno, and
    # Windows' Winsock form (its message in the system's language, the code read)
    ("ray12206_raylet_grpc_os_error_98_wrapped.txt", [(3, 98, "EADDRINUSE", "Address already in use")]),
    ("ray14098_raylet_grpc_os_error_98_cut.txt", [(1, 98, "EADDRINUSE", "Address already in use")]),
    ("grpc16422_windows_wsa_error_10048.txt",
     [(1, 10048, "EADDRINUSE", "Only one usage of each socket address (protocol/network address/port) is normally permitted.")]),
    # cut before the errno: nothing says which error
    ("ray23152_raylet_grpc_error_cut_before_errno.txt", []),
    # the absl::Status form of gRPC's EventEngine listener: the strerror alone names the errno, no number given
    ("grpc35004_event_engine_bind_in_use_status.txt", [(1, None, "EADDRINUSE", "Address already in use")]),
])
def test_grpc_os_error(name, want):
    text = (FIX / name).read_text()
    assert python_os_error.detect(text) == bool(want)
    got = [(f.evidence.line, f.errno, f.errno_name, f.strerror) for f in parse_text(text).facts]
    assert got == want


@pytest.mark.parametrize("text,want", [
    # CONSTRUCTED from grpc_os_error's JSON before 1.10 ("OS Error" the description, the strerror under os_error)
    ('{"created":"@1","description":"OS Error","errno":98,"file":"src/core/lib/iomgr/tcp_server_utils_posix_common.c","file_line":173,"os_error":"Address already in use","syscall":"bind"}\n',
     [(98, "EADDRINUSE")]),
    # CONSTRUCTED: an errno whose text is no strerror, a Winsock code that is no POSIX errno's: not read
    ('{"description":"Something else","errno":98}\n', []),
    ('{"os_error":"An unknown error","syscall":"bind","wsa_error":10013}\n', []),
    # CONSTRUCTED from status_helper.cc StatusToString and grpc_os_error (gRPC releases with absl::Status): the
    # innermost child of Ray's server status, with and without the debug build's file and file_line
    ("E0607 09:28:00.406267389    2596 chttp2_server.cc:1063]                UNKNOWN:No address added out of total 1 resolved "
     "for '0.0.0.0:10160' {created_time:\"2026-06-07T09:28:00.406238511+00:00\", children:[UNKNOWN:Failed to add any wildcard "
     "listeners {created_time:\"2026-06-07T09:28:00.406231982+00:00\", children:[UNKNOWN:Unable to configure socket {fd:26, "
     "created_time:\"2026-06-07T09:28:00.406201374+00:00\", children:[UNKNOWN:Address already in use {created_time:"
     "\"2026-06-07T09:28:00.406193870+00:00\", errno:98, os_error:\"Address already in use\", syscall:\"bind\"}]}]}]}\n",
     [(98, "EADDRINUSE")]),
    ('UNKNOWN:Address already in use {file:"src/core/lib/iomgr/tcp_server_utils_posix_common.cc", file_line:219, '
     'created_time:"2023-05-01T10:00:00+00:00", errno:48, os_error:"Address already in use", syscall:"bind"}\n', [(48, "EADDRINUSE")]),
    ("INTERNAL:Error in bind: Address already in use\n", [(None, "EADDRINUSE")]),
    # CONSTRUCTED: another errno is read as its own; "Error in bind: " without gRPC's status code, and a text that is
    # no strerror, are not read
    ('UNKNOWN:Connection refused {created_time:"2026-06-07T09:28:00+00:00", errno:111, os_error:"Connection refused", syscall:"connect"}\n',
     [(111, "ECONNREFUSED")]),
    ("Error in bind: Address already in use\n", []),
    ("INTERNAL:Error in bind: Something odd\n", []),
])
def test_grpc_os_error_forms(text, want):
    assert [(f.errno, f.errno_name) for f in parse_text(text).facts] == want


def test_macos_errno_named_from_its_text():
    # asweigart/whatismyip#2: macOS numbers EADDRINUSE 48 (Linux 98): the strerror text names it
    text = (FIX / "whatismyip2_macos_errno_48.txt").read_text()
    assert [(f.errno, f.errno_name) for f in parse_text(text).facts] == [(48, "EADDRINUSE")]
