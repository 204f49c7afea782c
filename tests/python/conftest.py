"""Starts real `basalt standalone` processes for the tests: each on a free port and its own
data directory, stopped with SIGTERM and required to exit cleanly."""

import os
import re
import signal
import subprocess
import time

import pytest

BASALT = os.environ.get("BASALT_BIN", "basalt")


class Basalt:
    """One `basalt standalone` process."""

    def __init__(self, data, *flags):
        self.data = str(data)
        self.flags = list(flags)
        self.proc = subprocess.Popen(
            [BASALT, "standalone", "--data", self.data, "--thrift-port", "0", *self.flags],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        line = self.proc.stdout.readline()
        match = re.match(r"thrift listening on 127\.0\.0\.1:(\d+)", line)
        if not match:
            self.proc.kill()
            raise RuntimeError(
                f"basalt did not start: {line!r} {self.proc.stderr.read()!r}"
            )
        self.port = int(match.group(1))

    def stop(self, sig=signal.SIGTERM):
        """Stops the server; returns its exit code and the rest of its output."""
        self.proc.send_signal(sig)
        out, err = self.proc.communicate(timeout=60)
        return self.proc.returncode, out, err


@pytest.fixture(scope="module", params=["buffered", "framed"])
def server(request, tmp_path_factory):
    transport = request.param
    flags = ["--framed"] if transport == "framed" else []
    basalt = Basalt(tmp_path_factory.mktemp("data"), *flags)
    basalt.transport = transport
    yield basalt
    if basalt.proc.poll() is None:
        code, out, err = basalt.stop()
        assert code == 0, err
        assert "stopped" in out


def wait_for(predicate, seconds=10):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False
