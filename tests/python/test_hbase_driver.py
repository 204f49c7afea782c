"""hbase-driver 1.1.1 (a native-RPC Python client) against `basalt standalone` published in a
real ZooKeeper: it finds the master and meta there, reads region locations from hbase:meta,
and talks protobuf RPC to MasterService and ClientService."""

import os
import signal
import subprocess
import uuid

import pytest

from conftest import Basalt

from hbasedriver.client.client import Client
from hbasedriver.common.table_name import TableName
from hbasedriver.filter import PrefixFilter
from hbasedriver.operations.batch import BatchGet, BatchPut
from hbasedriver.operations.column_family_builder import ColumnFamilyDescriptorBuilder
from hbasedriver.operations.delete import Delete
from hbasedriver.operations.get import Get
from hbasedriver.operations.increment import CheckAndPut, Increment
from hbasedriver.operations.put import Put
from hbasedriver.operations.scan import Scan

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="module")
def zookeeper(tmp_path_factory):
    d = tmp_path_factory.mktemp("zk")
    out = subprocess.run(
        ["bash", os.path.join(HERE, "..", "zookeeper", "start.sh"), str(d)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    port, pid = int(out[0]), int(out[1])
    yield port
    os.kill(pid, signal.SIGTERM)


@pytest.fixture(scope="module")
def client(zookeeper, tmp_path_factory):
    basalt = Basalt(
        tmp_path_factory.mktemp("data"),
        "--rpc-port", "0",
        "--zookeeper", f"127.0.0.1:{zookeeper}",
    )
    c = Client({"hbase.zookeeper.quorum": f"127.0.0.1:{zookeeper}"})
    yield c
    c.close()
    code, out, err = basalt.stop()
    assert code == 0, err


@pytest.fixture
def table(client):
    name = TableName.value_of(b"default", f"hd_{uuid.uuid4().hex[:8]}".encode())
    admin = client.get_admin()
    admin.create_table(name, [ColumnFamilyDescriptorBuilder(b"cf").build()])
    yield client.get_table(name.ns, name.tb)
    admin.disable_table(name)
    admin.delete_table(name)


def test_table_administration(client):
    admin = client.get_admin()
    name = TableName.value_of(b"default", b"admin_t")
    admin.create_table(name, [ColumnFamilyDescriptorBuilder(b"cf").build()], split_keys=[b"m"])
    assert admin.table_exists(name)
    schema = admin.describe_table(name)
    assert b"cf" in str(schema).encode() or "cf" in str(schema)
    admin.disable_table(name)
    admin.enable_table(name)
    admin.disable_table(name)
    admin.delete_table(name)
    assert not admin.table_exists(name)


def test_put_get_delete_and_scan_with_a_filter(table):
    for i in range(30):
        table.put(Put(b"user:%04d" % i).add_column(b"cf", b"name", b"n%d" % i))
    table.put(Put(b"other").add_column(b"cf", b"name", b"x"))
    row = table.get(Get(b"user:0007").add_column(b"cf", b"name"))
    assert row.get(b"cf", b"name") == b"n7"
    table.delete(Delete(b"user:0007"))
    assert table.get(Get(b"user:0007")) is None
    scan = Scan(start_row=b"user:").set_filter(PrefixFilter(b"user:"))
    with table.scan(scan) as scanner:
        keys = [r.rowkey for r in scanner.next_batch(1000)]
    assert len(keys) == 29 and b"other" not in keys and b"user:0007" not in keys


def test_batches_counters_and_check_and_put(table):
    batch = BatchPut()
    for i in range(5):
        batch.add_put(Put(b"b%d" % i).add_column(b"cf", b"q", b"v%d" % i))
    table.batch_put(batch)
    got = table.batch_get(BatchGet([b"b1", b"b3", b"missing"]))
    assert got[b"b3"].get(b"cf", b"q") == b"v3"
    assert table.increment(Increment(b"c").add_column(b"cf", b"n", 5)) == 5
    assert table.increment(Increment(b"c").add_column(b"cf", b"n", 2)) == 7
    cap = CheckAndPut(b"lock")
    cap.set_check(b"cf", b"owner", None)
    cap.set_put(Put(b"lock").add_column(b"cf", b"owner", b"me"))
    assert table.check_and_put(cap)
    again = CheckAndPut(b"lock")
    again.set_check(b"cf", b"owner", None)
    again.set_put(Put(b"lock").add_column(b"cf", b"owner", b"you"))
    assert not table.check_and_put(again)
    assert table.get(Get(b"lock")).get(b"cf", b"owner") == b"me"
