"""Starts real `basalt standalone` processes for the tests: each on a free port and its own
data directory, stopped with SIGTERM and required to exit cleanly. The "remote" variant puts
a `basalt thrift --connect` gateway in front of a standalone server's native RPC, so the same
happybase tests run through a gateway that is a client of the server."""

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
            [BASALT, "standalone", "--data", self.data, "--thrift-port", "0", "--info-port", "0", *self.flags],
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

    def read_address(self, label):
        """Reads the server's output up to the line `<label> listening on HOST:PORT`; returns
        HOST:PORT. Bounded: the server prints a handful of lines before it serves."""
        for _ in range(20):
            line = self.proc.stdout.readline()
            match = re.match(re.escape(label) + r" listening on (\S+)", line)
            if match:
                return match.group(1)
        raise RuntimeError(f"basalt standalone named no {label} address")

    def stop(self, sig=signal.SIGTERM):
        """Stops the server; returns its exit code and the rest of its output."""
        self.proc.send_signal(sig)
        out, err = self.proc.communicate(timeout=60)
        return self.proc.returncode, out, err


class RemoteGateway:
    """A `basalt standalone` serving the native RPC, and a `basalt thrift --connect` gateway
    to it; `port` is the gateway's."""

    def __init__(self, data):
        self.server = Basalt(data, "--rpc-port", "0")
        self.data = self.server.data
        try:
            rpc = self.server.read_address("rpc (ClientService, AdminService, MasterService)")
        except RuntimeError:
            self.server.stop()
            raise
        self.proc = subprocess.Popen(
            [BASALT, "thrift", "--connect", rpc, "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        line = self.proc.stdout.readline()
        match = re.match(r"thrift listening on 127\.0\.0\.1:(\d+)", line)
        if not match:
            self.proc.kill()
            self.server.stop()
            raise RuntimeError(f"basalt thrift did not start: {line!r} {self.proc.stderr.read()!r}")
        self.port = int(match.group(1))

    def stop(self, sig=signal.SIGTERM):
        """Stops the gateway, then the server; returns the gateway's exit code and output."""
        self.proc.send_signal(sig)
        out, err = self.proc.communicate(timeout=60)
        code, _, server_err = self.server.stop(sig)
        assert code == 0, server_err
        return self.proc.returncode, out, err


class Cluster:
    """`basalt cluster start --servers N` in a session of its own (the whole group is killed if a test
    fails before stopping it)."""

    def __init__(self, data, *flags, servers=3):
        self.proc = subprocess.Popen(
            [BASALT, "cluster", "start", "--servers", str(servers), "--data", str(data),
             "--session-timeout-ms", "3000", *flags],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.lines = []
        self.quorum = None
        deadline = time.time() + 120
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            self.lines.append(line)
            match = re.match(r"zookeeper (\S+)", line)
            if match:
                self.quorum = match.group(1)
            if line.startswith("cluster ready"):
                return
        self.kill()
        raise RuntimeError("the cluster did not start: " + "".join(self.lines))

    def kill(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=30)

    def stop(self):
        """Stops it cleanly; returns its exit code."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.communicate(timeout=120)
        finally:
            self.kill()
        return self.proc.returncode


@pytest.fixture(scope="module", params=["buffered", "framed", "remote"])
def server(request, tmp_path_factory):
    transport = request.param
    data = tmp_path_factory.mktemp("data")
    if transport == "remote":
        basalt = RemoteGateway(data)
        transport = "buffered"
    else:
        basalt = Basalt(data, *(["--framed"] if transport == "framed" else []))
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
