"""happybase 1.3.0 against a real `basalt standalone`, over buffered and framed transports:
what an HBase user does with it, and what HBase answers."""

import random
import signal
import socket
import struct
import threading
import uuid

import happybase
import pytest

from conftest import Basalt


def connect(server, **kw):
    return happybase.Connection(
        "127.0.0.1", server.port, transport=server.transport, **kw
    )


@pytest.fixture
def conn(server):
    c = connect(server)
    yield c
    c.close()


@pytest.fixture
def table(conn):
    name = "t_" + uuid.uuid4().hex[:10]
    conn.create_table(name, {"cf1": dict(), "cf2": dict(), "cf3": dict(max_versions=1)})
    yield conn.table(name)
    conn.delete_table(name, disable=True)


def test_tables_families_and_regions(conn):
    conn.create_table("admin_t", {"a": dict(max_versions=5), "b": dict()})
    assert b"admin_t" in conn.tables()
    assert conn.is_table_enabled("admin_t")
    conn.disable_table("admin_t")
    assert not conn.is_table_enabled("admin_t")
    conn.enable_table("admin_t")
    assert conn.is_table_enabled("admin_t")
    families = conn.table("admin_t").families()
    assert set(families) == {b"a", b"b"}
    assert families[b"a"]["max_versions"] == 5
    assert families[b"b"]["max_versions"] == 3
    regions = conn.table("admin_t").regions()
    assert len(regions) == 1 and regions[0]["start_key"] == b""
    conn.compact_table("admin_t")
    conn.compact_table("admin_t", major=True)
    with pytest.raises(Exception, match="already exists"):
        conn.create_table("admin_t", {"a": dict()})
    conn.delete_table("admin_t", disable=True)
    assert b"admin_t" not in conn.tables()


def test_table_prefix(server):
    c = connect(server, table_prefix="app")
    c.create_table("users", {"f": dict()})
    assert b"users" in c.tables()
    assert b"app_users" in connect(server).tables()
    c.delete_table("users", disable=True)


def test_put_row_and_timestamps(table):
    table.put(b"r1", {b"cf1:a": b"1", b"cf1:b": b"2", b"cf2:c": b"3"})
    assert table.row(b"r1") == {b"cf1:a": b"1", b"cf1:b": b"2", b"cf2:c": b"3"}
    assert table.row(b"r1", columns=[b"cf1:a", b"cf2"]) == {b"cf1:a": b"1", b"cf2:c": b"3"}
    assert table.row(b"missing") == {}
    table.put(b"r2", {b"cf1:x": b"old"}, timestamp=2345678)
    table.put(b"r2", {b"cf1:x": b"new"}, timestamp=1369168852994)
    assert table.row(b"r2", include_timestamp=True) == {b"cf1:x": (b"new", 1369168852994)}
    # A read timestamp is an exclusive upper bound.
    assert table.row(b"r2", timestamp=1369168852994) == {b"cf1:x": b"old"}
    assert table.row(b"r2", timestamp=2345678) == {}
    # The empty qualifier is a column of its own.
    table.put(b"r3", {b"cf1:": b"empty"})
    assert table.row(b"r3") == {b"cf1:": b"empty"}


def test_rows(table):
    for i in range(5):
        table.put(b"row%d" % i, {b"cf1:q": b"v%d" % i})
    got = table.rows([b"row1", b"nope", b"row3"])
    assert got == [(b"row1", {b"cf1:q": b"v1"}), (b"row3", {b"cf1:q": b"v3"})]
    got = table.rows([b"row1", b"row2"], columns=[b"cf1"], include_timestamp=True)
    assert [r for r, _ in got] == [b"row1", b"row2"]


def test_cells_and_versions(table):
    for ts in (1, 2, 3, 4):
        table.put(b"r", {b"cf1:v": b"v%d" % ts}, timestamp=ts)
        table.put(b"r", {b"cf3:v": b"v%d" % ts}, timestamp=ts)
    # Three versions at most (the family keeps three), newest first.
    assert table.cells(b"r", b"cf1:v", versions=10) == [b"v4", b"v3", b"v2"]
    assert table.cells(b"r", b"cf1:v", versions=2, include_timestamp=True) == [
        (b"v4", 4),
        (b"v3", 3),
    ]
    # Before a timestamp (exclusive), newest first: v1 is still there until a flush or
    # compaction enforces VERSIONS, as in HBase.
    assert table.cells(b"r", b"cf1:v", versions=1, timestamp=3) == [b"v2"]
    assert table.cells(b"r", b"cf3:v", versions=10) == [b"v4"]


def test_deletes(table):
    table.put(b"r", {b"cf1:a": b"1", b"cf1:b": b"2", b"cf2:c": b"3"})
    table.delete(b"r", columns=[b"cf1:a"])
    assert table.row(b"r") == {b"cf1:b": b"2", b"cf2:c": b"3"}
    table.delete(b"r", columns=[b"cf1"])
    assert table.row(b"r") == {b"cf2:c": b"3"}
    table.delete(b"r")
    assert table.row(b"r") == {}
    # With a timestamp: versions up to it go, newer ones stay.
    table.put(b"t", {b"cf1:x": b"old"}, timestamp=10)
    table.put(b"t", {b"cf1:x": b"new"}, timestamp=20)
    table.put(b"t", {b"cf2:y": b"old"}, timestamp=12345)
    table.put(b"t", {b"cf2:y": b"new"}, timestamp=12346)
    table.delete(b"t", columns=[b"cf1:x"], timestamp=10)
    assert table.cells(b"t", b"cf1:x", versions=5) == [b"new"]
    table.delete(b"t", columns=[b"cf2"], timestamp=12345)
    assert table.row(b"t", columns=[b"cf2"]) == {b"cf2:y": b"new"}
    # A delete marker masks a later put with an older timestamp.
    table.delete(b"m", columns=[b"cf1:z"], timestamp=100)
    table.put(b"m", {b"cf1:z": b"late"}, timestamp=50)
    assert table.row(b"m") == {}


def test_counters(table):
    table.counter_set(b"c", b"cf1:set", 1000)
    assert table.row(b"c")[b"cf1:set"] == struct.pack(">q", 1000)
    assert table.counter_inc(b"c", b"cf1:set", value=-1) == 999
    assert table.counter_get(b"c", b"cf1:n") == 0
    assert table.counter_inc(b"c", b"cf1:n") == 1
    assert table.counter_inc(b"c", b"cf1:n", value=41) == 42
    assert table.counter_dec(b"c", b"cf1:n", value=50) == -8
    assert table.counter_get(b"c", b"cf1:n") == -8
    table.put(b"c", {b"cf1:s": b"abc"})
    with pytest.raises(Exception, match="not a long"):
        table.counter_inc(b"c", b"cf1:s")


def test_counter_set_right_after_increments(table):
    # happybase's own test_atomic_counters sequence: increments, a set to 0 and one more
    # increment, all well within one millisecond of each other on a fast server.
    for _ in range(20):
        row = b"ctr-%d" % _
        assert table.counter_inc(row, b"cf1:c") == 1
        assert table.counter_inc(row, b"cf1:c") == 2
        table.counter_set(row, b"cf1:c", 0)
        assert table.counter_get(row, b"cf1:c") == 0
        assert table.counter_inc(row, b"cf1:c") == 1
        table.delete(row, columns=[b"cf1:c"])
        table.put(row, {b"cf1:c": b"x"})
        assert table.row(row) == {b"cf1:c": b"x"}


def test_batches(table):
    with table.batch(batch_size=7) as b:
        for i in range(40):
            b.put(b"b%02d" % i, {b"cf1:q": b"v", b"cf2:q": b"w"})
        b.delete(b"b05")
        b.delete(b"b06", columns=[b"cf2"])
    assert table.row(b"b05") == {}
    assert table.row(b"b06") == {b"cf1:q": b"v"}
    assert len(list(table.scan(row_prefix=b"b"))) == 39
    # A put and a delete of one cell in one batch at one timestamp: deleted.
    with table.batch(timestamp=77) as b:
        b.put(b"pd", {b"cf1:x": b"1"})
        b.delete(b"pd", columns=[b"cf1:x"])
    assert table.row(b"pd") == {}
    # An error inside a transaction batch sends nothing.
    with pytest.raises(ValueError):
        with table.batch(transaction=True) as b:
            b.put(b"tx", {b"cf1:x": b"1"})
            raise ValueError("abort")
    assert table.row(b"tx") == {}
    # wal=False writes go through too.
    table.put(b"nowal", {b"cf1:x": b"1"}, wal=False)
    assert table.row(b"nowal") == {b"cf1:x": b"1"}


def test_scans(table):
    with table.batch() as b:
        for i in range(200):
            b.put(b"s%03d" % i, {b"cf1:a": b"%d" % i, b"cf2:b": b"x"})
    rows = list(table.scan(row_start=b"s010", row_stop=b"s020"))
    assert [r for r, _ in rows] == [b"s%03d" % i for i in range(10, 20)]
    assert len(list(table.scan(row_start=b"zzz"))) == 0
    assert len(list(table.scan(row_prefix=b"s1"))) == 100
    for batch_size in (1, 5, 499, 1000):
        assert len(list(table.scan(batch_size=batch_size))) == 200
    assert len(list(table.scan(limit=17))) == 17
    rows = list(table.scan(row_prefix=b"s00", columns=[b"cf2"]))
    assert rows[0][1] == {b"cf2:b": b"x"}
    rev = [r for r, _ in table.scan(row_start=b"s005", row_stop=b"s001", reverse=True)]
    assert rev == [b"s005", b"s004", b"s003", b"s002"]
    rev = [r for r, _ in table.scan(row_prefix=b"s19", reverse=True)]
    assert rev[0] == b"s199" and len(rev) == 10
    got = list(table.scan(filter="SingleColumnValueFilter('cf1', 'a', =, 'binary:7')"))
    assert [r for r, _ in got] == [b"s007"]
    got = list(
        table.scan(filter="PrefixFilter('s05') AND ValueFilter(=, 'binary:x')")
    )
    assert len(got) == 10 and all(d == {b"cf2:b": b"x"} for _, d in got)
    # scan_batching cuts rows into results of that many cells.
    parts = list(table.scan(row_prefix=b"s000", scan_batching=1))
    assert [d for _, d in parts] == [{b"cf1:a": b"0"}, {b"cf2:b": b"x"}]
    # A timestamp scan leaves out rows with no visible cell.
    table.put(b"ts1", {b"cf1:a": b"old"}, timestamp=123)
    assert [r for r, _ in table.scan(timestamp=124)] == [b"ts1"]
    with pytest.raises(Exception):
        list(table.scan(filter="NoSuchFilter('x')"))


def test_sorted_columns(table):
    table.put(b"w", {b"cf1:%02d" % i: b"" for i in range(100)})
    ((row, data),) = list(table.scan(sorted_columns=True))
    assert list(data) == sorted(data)
    assert len(data) == 100


def test_connection_pool_with_dropped_sockets(server):
    pool = happybase.ConnectionPool(3, host="127.0.0.1", port=server.port,
                                    transport=server.transport)
    errors = []
    calls = [0]
    lock = threading.Lock()

    def work():
        rng = random.Random()
        for _ in range(100):
            try:
                with pool.connection() as c:
                    if not c.transport.is_open():
                        c.open()
                    c.tables()
                    with lock:
                        calls[0] += 1
                    if rng.random() < 0.2:
                        c.transport.close()
            except Exception as e:  # noqa: BLE001 - collected and reported below
                errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors[:3]
    assert calls[0] == 1000
    # Raw sockets that vanish mid-call do not hurt the server either.
    for cut in (1, 5, 12):
        s = socket.create_connection(("127.0.0.1", server.port))
        s.sendall(b"\x80\x01\x00\x01\x00\x00\x00\x0dgetTableNames"[:cut])
        s.close()
    assert connect(server).tables() is not None


def test_second_server_on_the_same_data_fails_at_once(server):
    other = None
    try:
        other = Basalt(server.data)
    except RuntimeError as e:
        assert "another basalt" in str(e)
    else:
        other.stop()
        pytest.fail("a second server opened the same data directory")


def test_clean_shutdown_keeps_every_write(tmp_path):
    first = Basalt(tmp_path)
    first.transport = "buffered"
    c = connect(first)
    c.create_table("keep", {"f": dict()})
    with c.table("keep").batch(wal=False) as b:
        for i in range(500):
            b.put(b"k%03d" % i, {b"f:q": b"%d" % i})
    c.close()
    code, out, _ = first.stop()
    assert code == 0 and "stopped" in out
    second = Basalt(tmp_path, "--compact")
    try:
        c = happybase.Connection("127.0.0.1", second.port, protocol="compact")
        rows = list(c.table("keep").scan())
        assert len(rows) == 500 and rows[499] == (b"k499", {b"f:q": b"499"})
        c.close()
    finally:
        code, _, _ = second.stop(signal.SIGINT)
    assert code == 0

