"""cgroup v1 devices.list as pasted in public threads (NVIDIA/nvidia-container-toolkit#192;
gitpod-io/gitpod#4652; NVIDIA/nvidia-docker#1618, a copy of harvest case 1601)."""
from __future__ import annotations

import pytest
from parse_helper import parse_fixture

from stethoscope.facts.parsers import cgroup_devices_list as reader


@pytest.mark.parametrize("rel,access,can_open,names,cut,line", [
    ("nvdocker1618_devices_list_mknod_only.txt", "m", False, True, True, 3),
    ("nct192_kubepods_gpu_container_before_reload.txt", "rwm", True, True, False, 13),  # c *:* m adds mknod
    ("gitpod4652_workspace_no_gpu_devices.txt", "m", False, False, False, 2),
])
def test_nvidia_access_of_each_list(rel, access, can_open, names, cut, line) -> None:
    res = parse_fixture(reader, f"cgroup_devices_list/{rel}")
    [f] = res.facts
    assert (f.access, f.can_open, f.names_nvidia, f.cut, f.evidence.line) == (access, can_open, names, cut, line)


def test_list_followed_by_a_dev_listing() -> None:
    # nvidia-docker#1618: the list, then `ll /dev/ | grep nvidia`: only the entries are read
    text = ("cat /sys/fs/cgroup/devices/devices.list\n...\nc 195:* m\nc 507:* m\n...\n"
            "root@node1:/workspace# ll /dev/ | grep nvidia\n"
            "crw-rw-rw- 1 root root 195, 254 Feb 23 06:28 nvidia-modeset\n")
    res = parse_fixture(reader, text=text)
    [f] = res.facts
    assert (f.access, f.can_open, res.lines_used) == ("m", False, 2)


@pytest.mark.parametrize("text", [
    "a *:* rwm\n",                      # one entry without the command: too little to claim the file
    "c 1:3 is the null device\n",
    "see devices.list for the rules\n",
])
def test_not_a_devices_list(text: str) -> None:
    assert not reader.detect(text)


def test_wildcard_all_devices_can_open() -> None:
    [f] = parse_fixture(reader, text="cat devices.list\na *:* rwm\n").facts
    assert (f.access, f.can_open, f.names_nvidia) == ("rwm", True, False)
