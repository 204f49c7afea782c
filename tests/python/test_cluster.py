"""A cluster of processes (`basalt cluster start`: a private ZooKeeper, a master and three
region servers) spoken to by the clients users have: hbase-driver over the native RPC, which
finds the master and meta in ZooKeeper and each region's server in hbase:meta, and happybase
through `basalt thrift --zookeeper`, a gateway that is a client of the cluster. A pre-split
table's regions are spread over the servers, and both clients read what both wrote."""

import os
import re
import signal
import subprocess
import time

import happybase
import pytest
import requests

from conftest import BASALT, Cluster

from hbasedriver.client.client import Client
from hbasedriver.common.table_name import TableName
from hbasedriver.operations.column_family_builder import ColumnFamilyDescriptorBuilder
from hbasedriver.operations.get import Get
from hbasedriver.operations.put import Put
from hbasedriver.operations.scan import Scan


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = Cluster(tmp_path_factory.mktemp("cluster"))
    yield c
    assert c.stop() == 0


@pytest.fixture(scope="module")
def gateway(cluster):
    proc = subprocess.Popen(
        [BASALT, "thrift", "--zookeeper", cluster.quorum, "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline()
    match = re.match(r"thrift listening on 127\.0\.0\.1:(\d+)", line)
    if not match:
        proc.kill()
        raise RuntimeError(f"basalt thrift did not start: {line!r} {proc.stderr.read()!r}")
    yield int(match.group(1))
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)


ROWS = [b"apple", b"hazel", b"plum", b"zebra"]


def test_native_and_thrift_clients_share_a_spread_table(cluster, gateway):
    client = Client({"hbase.zookeeper.quorum": cluster.quorum})
    admin = client.get_admin()
    name = TableName.value_of(b"default", b"spread")
    admin.create_table(name, [ColumnFamilyDescriptorBuilder(b"cf").build()],
                       split_keys=[b"g", b"p", b"w"])
    table = client.get_table(name.ns, name.tb)
    for row in ROWS:
        table.put(Put(row).add_column(b"cf", b"native", row.upper()))
    assert table.get(Get(b"plum")).get(b"cf", b"native") == b"PLUM"

    conn = happybase.Connection("127.0.0.1", gateway)
    t = conn.table("spread")
    # Four regions, over the three servers (hbase:meta's table lists each region's server).
    regions = t.regions()
    assert len(regions) == 4
    assert len({(r["server_name"], r["port"]) for r in regions}) == 3, regions
    for row in ROWS:
        t.put(row, {b"cf:thrift": row.lower()})
    got = dict(t.scan())
    assert sorted(got) == sorted(ROWS)
    for row in ROWS:
        assert got[row] == {b"cf:native": row.upper(), b"cf:thrift": row.lower()}
    conn.close()

    # The native client reads the gateway's writes on each region's server: a get per row,
    # and a scan of each region (hbase-driver 1.1.1 scans one region per scan, and finds the
    # region before one whose start key it starts at, against HBase too: each scan starts
    # inside its region).
    for row in ROWS:
        assert table.get(Get(row)).get(b"cf", b"thrift") == row.lower()
    scanned = []
    for start, end in zip([b"", b"h", b"pa", b"x"], [b"g", b"p", b"w", None]):
        scan = Scan(start_row=start)
        if end is not None:
            scan = scan.with_end_row(end, inclusive=False)
        with table.scan(scan) as scanner:
            scanned.extend(r.rowkey for r in scanner.next_batch(100))
    assert scanned == ROWS
    client.close()


def info_addresses(cluster, role):
    """The info servers the cluster's processes printed for `role` (master, region server)."""
    found = []
    for line in cluster.lines:
        match = re.search(r"info listening on (\S+) \((.*)\)", line)
        if match and match.group(2) == role:
            found.append(match.group(1))
    return found


def get(url, accept=None):
    headers = {"Accept": accept} if accept else {}
    return requests.get(url, headers=headers, timeout=30)


def test_rest_gateway_and_info_pages_show_the_spread_table(cluster):
    client = Client({"hbase.zookeeper.quorum": cluster.quorum})
    name = TableName.value_of(b"default", b"seen")
    client.get_admin().create_table(
        name, [ColumnFamilyDescriptorBuilder(b"cf").build()], split_keys=[b"g", b"p", b"w"]
    )
    table = client.get_table(name.ns, name.tb)
    for row in ROWS:
        table.put(Put(row).add_column(b"cf", b"q", row.upper()))
    client.close()

    # REST as a client of the cluster, through ZooKeeper.
    proc = subprocess.Popen(
        [BASALT, "rest", "--zookeeper", cluster.quorum, "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        match = re.match(r"rest listening on ([\d.]+:\d+)", line)
        assert match, f"basalt rest did not start: {line!r}"
        url = f"http://{match.group(1)}"
        for row in ROWS:
            r = get(f"{url}/seen/{row.decode()}/cf:q", "application/octet-stream")
            assert r.status_code == 200 and r.content == row.upper()
        regions = get(f"{url}/seen/regions", "application/json").json()["Region"]
        assert len({r["location"] for r in regions}) == 3, regions
        status = get(f"{url}/status/cluster", "application/json").json()
        assert len(status["LiveNodes"]) == 3
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)

    # The master's pages show the regions on their servers with the writes each took.
    masters = info_addresses(cluster, "master")
    assert masters, "".join(cluster.lines)
    page = get(f"http://{masters[-1]}/table.jsp?name=seen").text
    writes = [int(w) for w in re.findall(r'<td class="num writes">(\d+)</td>', page)]
    assert len(writes) == 4 and sum(writes) == len(ROWS), page
    master_metrics = get(f"http://{masters[-1]}/metrics").text
    assert "basalt_master_region_servers 3" in master_metrics, master_metrics
    assert "basalt_master_regions_in_transition 0" in master_metrics, master_metrics
    # Each region server's /metrics counts the puts it served.
    servers = info_addresses(cluster, "region server")
    assert len(servers) == 3, "".join(cluster.lines)
    puts = 0
    for s in servers:
        text = get(f"http://{s}/metrics").text
        puts += sum(
            float(l.rsplit(" ", 1)[1])
            for l in text.splitlines()
            if l.startswith('basalt_region_write_requests_total{table="seen"')
        )
    assert puts == len(ROWS)
