# SPDX-License-Identifier: GPL-2.0
from harness import kconfig_check as kc


def test_parse_set_and_unset():
    opts = kc.parse(['CONFIG_A=y', '# CONFIG_B is not set', 'CONFIG_C="x"',
                     '# comment', ''])
    assert opts == {'CONFIG_A': 'y', 'CONFIG_B': 'n', 'CONFIG_C': '"x"'}


def test_all_present_is_clean():
    final = kc.parse(['CONFIG_A=y', 'CONFIG_HZ=1000'])
    assert kc.lost_options(final, {'CONFIG_A': 'y', 'CONFIG_B': 'n'}) == []


def test_dropped_option_is_named():
    # Kconfig drops an option whose dependency is missing: it is absent
    # from the final .config, and the check must name it.
    final = kc.parse(['CONFIG_FTRACE=y'])
    lost = kc.lost_options(final, {'CONFIG_BLK_DEV_IO_TRACE': 'y',
                                   'CONFIG_FTRACE': 'y'})
    assert lost == [('CONFIG_BLK_DEV_IO_TRACE', 'y', 'n')]


def test_main_exit_status(tmp_path, capsys):
    final = tmp_path / 'config'
    final.write_text('CONFIG_A=y\n')
    frag = tmp_path / 'frag'
    frag.write_text('CONFIG_A=y\nCONFIG_LKDTM=y\n')
    assert kc.main(['x', str(final), str(frag)]) == 1
    assert 'CONFIG_LKDTM' in capsys.readouterr().out
    frag.write_text('CONFIG_A=y\n')
    assert kc.main(['x', str(final), str(frag)]) == 0
