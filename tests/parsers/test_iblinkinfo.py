"""iblinkinfo on real captures (824380210/Linpack): node headers, CA and switch port lines, Down
ports, a grep without headers, the -l line form, the 'Could be' verdict, near misses."""
from pathlib import Path

from stethoscope.facts.parsers import iblinkinfo
from stethoscope.facts.parsers.base import Artefact

A = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "iblinkinfo"


def links(text, node="n1"):
    res = iblinkinfo.parse(Artefact(path="iblinkinfo.txt", text=text, node=node, node_from_folder=True))
    return res, [(f.node_type, f.node_description, f.lid, f.port, f.state, f.physical_state, f.width, f.generation,
                  f.rate_gbps, f.peer_description, f.peer_port, f.below_capability) for f in res.facts]


def test_full_capture_cas_switch_and_polling_spares():
    text = (A / "linpack_edr_switch_polling.txt").read_text()
    assert iblinkinfo.detect(text)
    res, got = links(text)
    assert not res.errors and len(got) == 20
    assert got[0] == ("CA", "n02 HCA-1", 4, 1, "Active", "LinkUp", "4X", "EDR", 100.0, "MF0;SB7700:MSB7700/U1", 17, False)
    assert got[2] == ("Switch", "MF0;SB7700:MSB7700/U1", 2, 1, "Down", "Polling", None, None, None, None, None, False)
    assert got[-1] == ("Switch", "MF0;SB7700:MSB7700/U1", 2, 18, "Active", "LinkUp", "4X", "EDR", 100.0, "n01 HCA-1", 1, False)
    assert res.facts[0].node_guid == "ec0d9a03003d62be" and res.facts[-1].switch == "MF0;SB7700:MSB7700/U1"
    assert res.facts[0].evidence.line == 3 and res.lines_used == 23  # 3 headers, 20 ports; the prompt is not ours


def test_grep_without_headers():
    res, got = links((A / "linpack_edr_grep_up.txt").read_text())
    assert len(got) == 6 and not res.errors
    assert got[2][:4] == (None, None, 2, 17) and got[2][9] == "n02 HCA-1"


def test_line_mode_and_could_be_verdicts():
    # iblinkinfo -l (print_port with line_mode: node GUID and "%30s" description first, the peer's GUID before its LID)
    line = ('0xf452140300f55051 "              ib-test-7 mlx4_0"     37    1[  ] ==( 4X       14.0625 Gbps Active/  LinkUp)==>  '
            '0xf45214030067c630      5   16[  ] "MF0;switch-e1be74:SX6036/U1" ( )\n')
    res, got = links(line)
    assert got == [(None, "ib-test-7 mlx4_0", 37, 1, "Active", "LinkUp", "4X", "FDR", 56.0, "MF0;switch-e1be74:SX6036/U1", 16, False)]
    # get_max_msg's forms: width, speed, both, and the FDR10 special case (its own parentheses inside)
    res, got = links('           2   18[  ] ==( 1X      25.78125 Gbps Active/  LinkUp)==>       1    1[  ] "n01 HCA-1" (Could be 4X )\n')
    assert res.facts[0].could_be_width == "4X" and res.facts[0].could_be_speed is None and got[0][-1] is True
    assert res.facts[0].rate_gbps == 25.0 and res.facts[0].peer_note == "Could be 4X"
    res, _ = links('           2    3[  ] ==( 4X          10.0 Gbps Active/  LinkUp)==>       9    1[  ] "h9 HCA-1" ( Could be FDR10 (Found link at QDR but expected speed is FDR10))\n')
    assert res.facts[0].could_be_speed == "FDR10" and res.facts[0].generation == "QDR"
    res, _ = links('           2    4[  ] ==( 4X  10.0 Gbps (FDR10) Active/  LinkUp)==>      10    1[  ] "h10 HCA-1" ( )\n')
    assert res.facts[0].generation == "FDR10" and res.facts[0].rate_gbps == 40.0 and not res.facts[0].below_capability


def test_near_misses_and_unreadable_link():
    assert not iblinkinfo.detect("mlx5_0 port 1 ==> ibp26s0 (Up)\n")  # ibdev2netdev
    assert not iblinkinfo.detect("[1]     \"H-0c42a10300ac1e2a\"[1](c42a10300ac1e2a)         # \"node01 mlx5_0\" lid 5 4xHDR\n")
    res, got = links('           2    5[  ] ==( ??? )==>             [  ] "" ( )\n')
    assert got == [] and res.errors and "unreadable link" in res.errors[0].message
