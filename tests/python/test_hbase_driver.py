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
from hbasedriver.operations.append import Append
from hbasedriver.operations.row_mutations import RowMutations
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
    client.close()


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
    client.close()
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


AWKWARD_KEYS = [b"\x00", b"\x00,\xff", b",", b"a,b,c", bytes(range(256)), b"\xff\xff"]
# Split points around them (none equal to a key: hbase-driver searches from `<table>,<row>,`,
# which, as against HBase, finds the region before one that starts exactly at the row).
AWKWARD_SPLITS = [b"\x00\x01", b"+", b"a", b"\x80", b"\xff"]


def test_binary_row_keys_find_their_regions(zookeeper, client):
    # hbase-driver finds a row's region with a reversed scan of hbase:meta from
    # `<table>,<row>,`: meta must sort as HBase's meta comparator does, or rows below `,`
    # find the wrong region (or another table's).
    admin = client.get_admin()
    name = TableName.value_of(b"default", b"bin_keys")
    admin.create_table(name, [ColumnFamilyDescriptorBuilder(b"cf").build()], split_keys=AWKWARD_SPLITS)
    # A table whose name sorts right after this one's in plain byte order.
    other = TableName.value_of(b"default", b"bin_keys-2")
    admin.create_table(other, [ColumnFamilyDescriptorBuilder(b"cf").build()])
    conf = {"hbase.zookeeper.quorum": f"127.0.0.1:{zookeeper}"}
    for key in AWKWARD_KEYS:
        fresh = Client(conf)  # a fresh region lookup for every row
        table = fresh.get_table(b"default", b"bin_keys")
        expected = max(s for s in [b""] + AWKWARD_SPLITS if s < key)
        assert table.locate_target_region(key).region_info.start_key == expected, key
        assert table.put(Put(key).add_column(b"cf", b"q", key))
        fresh.close()
    for key in AWKWARD_KEYS:
        fresh = Client(conf)
        row = fresh.get_table(b"default", b"bin_keys").get(Get(key))
        assert row is not None and row.get(b"cf", b"q") == key, key
        fresh.close()
    for n in (name, other):
        admin.disable_table(n)
        admin.delete_table(n)
    client.close()


def test_mutations_report_that_they_were_processed(table):
    # HBase sets MutateResponse.processed for an applied Put or Delete; the driver returns it.
    assert table.put(Put(b"p").add_column(b"cf", b"q", b"v")) is True
    assert table.batch_put(BatchPut().add_put(Put(b"p2").add_column(b"cf", b"q", b"w"))) == [True]
    assert table.delete(Delete(b"p2")) is True
    assert table.get(Get(b"p2")) is None


def test_row_mutations_with_increments_and_appends(table):
    table.put(Put(b"m").add_column(b"cf", b"old", b"x").add_column(b"cf", b"tail", b"ab"))
    rm = RowMutations(b"m")
    rm.add(Put(b"m").add_column(b"cf", b"new", b"y"))
    rm.add(Delete(b"m").add_column(b"cf", b"old"))
    rm.add(Increment(b"m").add_column(b"cf", b"hits", 7))
    rm.add(Append(b"m").add_column(b"cf", b"tail", b"cd"))
    assert table.mutate_row(rm) is True
    row = table.get(Get(b"m"))
    assert row.get(b"cf", b"new") == b"y"
    assert row.get(b"cf", b"old") is None
    assert row.get(b"cf", b"tail") == b"abcd"
    assert row.get(b"cf", b"hits") == (7).to_bytes(8, "big")


def test_cluster_status_carries_each_servers_load(client, table):
    for i in range(10):
        table.put(Put(b"load%d" % i).add_column(b"cf", b"q", b"v"))
    table.get(Get(b"load1"))
    status = client.get_admin().get_cluster_status()
    assert len(status["live_servers"]) == 1
    load = status["live_servers"][0]["load"]
    assert load["total_number_of_requests"] >= 11
    assert load["used_heap_mb"] > 0 and load["max_heap_mb"] >= load["used_heap_mb"]


def test_table_state_and_deletes_by_column_and_version(client):
    admin = client.get_admin()
    name = TableName.value_of(b"default", b"states_t")
    admin.create_table(
        name,
        [ColumnFamilyDescriptorBuilder(b"cf1").build(), ColumnFamilyDescriptorBuilder(b"cf2").build()],
    )
    # Table state comes from hbase:meta's table:state, as the driver reads it.
    admin.disable_table(name)
    assert admin.is_table_disabled(name)
    admin.enable_table(name)
    assert admin.is_table_enabled(name)
    desc = admin.describe_table(name)
    assert {cf.name for cf in desc.table_schema[0].column_families} == {b"cf1", b"cf2"}
    table = client.get_table(name.ns, name.tb)
    table.put(Put(b"r").add_column(b"cf1", b"q", b"v").add_column(b"cf2", b"q", b"w"))
    table.delete(Delete(b"r").add_column(b"cf1", b"q"))
    assert table.get(Get(b"r").add_family(b"cf1")) is None
    assert table.get(Get(b"r").add_family(b"cf2")).get(b"cf2", b"q") == b"w"
    table.put(Put(b"v").add_column(b"cf1", b"q", b"old", ts=88888888))
    assert table.get(Get(b"v").add_family(b"cf1")).get(b"cf1", b"q") == b"old"
    table.delete(Delete(b"v").add_family_version(b"cf1", 88888888))
    assert table.get(Get(b"v").add_family(b"cf1")) is None
    admin.disable_table(name)
    admin.delete_table(name)
    client.close()


def test_large_scan_in_many_calls(zookeeper, client):
    # One region: hbase-driver 1.1.1 looks the next region up from the last row it read,
    # finds the same region and stops, so it reads only the first region of a split table
    # (against HBase too). A client of its own: the driver's location cache can hand out a
    # deleted table's region for another table's rows.
    client = Client({"hbase.zookeeper.quorum": f"127.0.0.1:{zookeeper}"})
    admin = client.get_admin()
    name = TableName.value_of(b"default", b"large_t")
    admin.create_table(name, [ColumnFamilyDescriptorBuilder(b"cf").build()])
    table = client.get_table(name.ns, name.tb)
    batch = BatchPut()
    for i in range(1200):
        batch.add_put(Put(b"r%04d" % i).add_column(b"cf", b"q", b"%d" % i))
    table.batch_put(batch)
    keys = []
    with table.scan(Scan()) as scanner:
        for _ in range(20):
            page = [r.rowkey for r in scanner.next_batch(250)]
            if not page:
                break
            keys.extend(page)
    assert len(keys) == 1200 and keys == sorted(keys)
    with table.scan(Scan(start_row=b"r0990").with_end_row(b"r1110", inclusive=False)) as scanner:
        middle = [r.rowkey for r in scanner.next_batch(10000)]
    assert middle[0] == b"r0990" and middle[-1] == b"r1109" and len(middle) == 120
    admin.disable_table(name)
    admin.delete_table(name)
    client.close()
