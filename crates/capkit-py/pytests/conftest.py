"""Fixtures shared by the test files."""

import signal

import pytest


@pytest.fixture
def python_sigint():
    """Python's own SIGINT handler for the duration of a test that simulates Ctrl-C.

    A process started with SIGINT ignored (a runner that launched the tests in the background
    without job control, `cmd &` in a script) keeps it ignored: Python then installs no handler
    and `_thread.interrupt_main()` does nothing, so the test would be testing the runner.
    """
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
