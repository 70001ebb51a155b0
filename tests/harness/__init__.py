# SPDX-License-Identifier: GPL-2.0
"""Host-side harness for the cfq-iosched patch set: VM runner, result
parsing, share computation and reports."""
