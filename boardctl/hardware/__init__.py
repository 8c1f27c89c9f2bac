"""The reference hardware build: pin tables, drawings, power figures, self-test.

Everything here serves the build guide in ``hardware/`` and ``boardctl
selftest``; the running service never imports it.
"""
