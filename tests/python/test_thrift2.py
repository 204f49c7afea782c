"""Thrift2 (THBaseService, what `hbase thrift2` serves) driven by the client Apache Thrift's
compiler generated from HBase's thrift2 hbase.thrift (as shipped in PyPI's thbase), over every
pairing of transport (buffered, framed) and protocol (binary, compact): against `basalt
standalone --thrift2-port`, and against a cluster of two region servers through `basalt
thrift2 --zookeeper`. Every method of the service is called, every request field is checked against the table in
docs/design/thrift2.md, and every field it lists as refused is sent and refused by name."""

import os
import re
import signal
import subprocess

import pytest
from thrift.Thrift import TType
from thrift.protocol import TBinaryProtocol, TCompactProtocol
from thrift.transport import TSocket, TTransport

from conftest import BASALT, Basalt, Cluster
from thbase.hbase import THBaseService
from thbase.hbase.ttypes import (
    TAccessControlEntity,
    TAppend,
    TAuthorization,
    TCellVisibility,
    TColumn,
    TColumnFamilyDescriptor,
    TColumnIncrement,
    TColumnValue,
    TCompareOp,
    TDelete,
    TDeleteType,
    TDurability,
    TGet,
    TIllegalArgument,
    TIncrement,
    TIOError,
    TLogQueryFilter,
    TMutation,
    TNamespaceDescriptor,
    TPermissionScope,
    TPut,
    TRowMutations,
    TScan,
    TTableDescriptor,
    TTableName,
    TThriftServerType,
    TTimeRange,
)

VARIANTS = [
    ("standalone", False, False),
    ("standalone", True, True),
    ("standalone", False, True),
    ("standalone", True, False),
    ("cluster", False, False),
    ("cluster", True, True),
]


# Access control on, with the gateways' user (basalt) a superuser, so grants can be tested.
ACCESS_CONTROL = ["--authorization", "--superuser", "basalt"]


def transport_flags(framed, compact):
    return (["--framed"] if framed else []) + (["--compact"] if compact else [])


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = Cluster(tmp_path_factory.mktemp("thrift2-cluster"), *ACCESS_CONTROL, servers=2)
    yield c
    assert c.stop() == 0


class Gateway:
    """`basalt thrift2 --zookeeper` in front of a cluster."""

    def __init__(self, quorum, flags):
        self.proc = subprocess.Popen(
            [BASALT, "thrift2", "--zookeeper", quorum, "--port", "0", *flags],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        line = self.proc.stdout.readline()
        match = re.match(r"thrift2 listening on 127\.0\.0\.1:(\d+)", line)
        if not match:
            self.proc.kill()
            raise RuntimeError(f"basalt thrift2 did not start: {line!r} {self.proc.stderr.read()!r}")
        self.port = int(match.group(1))

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.communicate(timeout=60)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
        return self.proc.returncode


@pytest.fixture(scope="module", params=VARIANTS, ids=lambda v: "-".join(
    [v[0], "framed" if v[1] else "buffered", "compact" if v[2] else "binary"]))
def server(request, tmp_path_factory):
    """(port, framed, compact, prefix): a Thrift2 server of the variant, and a prefix that
    keeps the variant's tables apart from the others' on the shared cluster."""
    kind, framed, compact = request.param
    prefix = ("f" if framed else "b") + ("c" if compact else "n")
    if kind == "standalone":
        basalt = Basalt(tmp_path_factory.mktemp("thrift2"), "--thrift2-port", "0",
                        *ACCESS_CONTROL, *transport_flags(framed, compact))
        try:
            port = int(basalt.read_address("thrift2").rsplit(":", 1)[1])
            yield port, framed, compact, prefix
        finally:
            code, out, err = basalt.stop()
            assert code == 0, err
            assert "stopped" in out
    else:
        cluster = request.getfixturevalue("cluster")
        gateway = Gateway(cluster.quorum, transport_flags(framed, compact))
        try:
            yield gateway.port, framed, compact, "cl" + prefix
        finally:
            assert gateway.stop() == 0


@pytest.fixture
def client(server):
    port, framed, compact, _ = server
    socket = TSocket.TSocket("127.0.0.1", port)
    socket.setTimeout(60000)
    transport = TTransport.TFramedTransport(socket) if framed else TTransport.TBufferedTransport(socket)
    protocol = (TCompactProtocol.TCompactProtocol if compact else TBinaryProtocol.TBinaryProtocol)(transport)
    transport.open()
    yield THBaseService.Client(protocol)
    transport.close()


def table_of(server, name):
    return TTableName(ns=b"default", qualifier=(server[3] + "_" + name).encode())


def create(client, server, name, families=(b"f",), splits=None):
    t = table_of(server, name)
    desc = TTableDescriptor(
        tableName=t,
        columns=[TColumnFamilyDescriptor(name=f, maxVersions=3) for f in families],
    )
    client.createTable(desc, splits or [])
    return t, t.qualifier


def values(result):
    return {(cv.family, cv.qualifier): cv.value for cv in result.columnValues}


def test_server_type_and_namespaces(client, server):
    assert client.getThriftServerType() == TThriftServerType.TWO
    ns = server[3] + "_ns"
    client.createNamespace(TNamespaceDescriptor(name=ns, configuration={"k": "v"}))
    assert client.getNamespaceDescriptor(ns).configuration == {"k": "v"}
    client.modifyNamespace(TNamespaceDescriptor(name=ns, configuration={"k": "w"}))
    assert client.getNamespaceDescriptor(ns).configuration == {"k": "w"}
    assert ns in client.listNamespaces()
    assert {"default", "hbase"} <= set(client.listNamespaces())
    assert ns in [d.name for d in client.listNamespaceDescriptors()]
    t = TTableName(ns=ns.encode(), qualifier=b"inside")
    client.createTable(TTableDescriptor(tableName=t, columns=[TColumnFamilyDescriptor(name=b"f")]), [])
    assert client.getTableNamesByNamespace(ns) == [t]
    assert [d.tableName for d in client.getTableDescriptorsByNamespace(ns)] == [t]
    with pytest.raises(TIOError) as err:
        client.deleteNamespace(ns)
    assert "Only empty namespaces can be removed" in err.value.message
    client.disableTable(t)
    client.deleteTable(t)
    client.deleteNamespace(ns)
    assert ns not in client.listNamespaces()
    with pytest.raises(TIOError) as err:
        client.getNamespaceDescriptor(ns)
    assert "NamespaceNotFoundException" in err.value.message


def test_table_admin(client, server):
    t, _ = create(client, server, "admin", families=(b"a", b"b"), splits=[b"g", b"p"])
    assert client.tableExists(t)
    assert not client.tableExists(table_of(server, "nothere"))
    desc = client.getTableDescriptor(t)
    assert desc.tableName == t
    assert sorted(c.name for c in desc.columns) == [b"a", b"b"]
    assert all(c.maxVersions == 3 for c in desc.columns)
    assert [d.tableName for d in client.getTableDescriptors([t])] == [t]
    pattern = server[3] + "_adm.*"
    assert client.getTableNamesByPattern(pattern, False) == [t]
    assert [d.tableName for d in client.getTableDescriptorsByPattern(pattern, False)] == [t]
    with_system = client.getTableNamesByPattern("hbase:meta", True)
    assert TTableName(ns=b"hbase", qualifier=b"meta") in with_system
    assert client.getTableNamesByPattern("hbase:meta", False) == []

    assert client.isTableEnabled(t) and not client.isTableDisabled(t)
    assert client.isTableAvailable(t)
    assert client.isTableAvailableWithSplit(t, [b"g", b"p"])
    assert not client.isTableAvailableWithSplit(t, [b"x"])
    client.disableTable(t)
    assert client.isTableDisabled(t) and not client.isTableEnabled(t)
    assert not client.isTableAvailable(t)
    client.enableTable(t)

    client.addColumnFamily(t, TColumnFamilyDescriptor(name=b"c", timeToLive=3600, inMemory=True))
    client.modifyColumnFamily(t, TColumnFamilyDescriptor(name=b"a", maxVersions=7))
    client.deleteColumnFamily(t, b"b")
    families = {c.name: c for c in client.getTableDescriptor(t).columns}
    assert sorted(families) == [b"a", b"c"]
    assert families[b"a"].maxVersions == 7
    assert families[b"c"].timeToLive == 3600 and families[b"c"].inMemory
    with pytest.raises(TIOError) as err:
        client.deleteColumnFamily(t, b"nope")
    assert "NoSuchColumnFamilyException" in err.value.message

    desc = client.getTableDescriptor(t)
    desc.attributes = {b"MAX_FILESIZE": b"1073741824"}
    client.modifyTable(desc)
    assert client.getTableDescriptor(t).attributes[b"MAX_FILESIZE"] == b"1073741824"

    client.put(t.qualifier, TPut(row=b"k", columnValues=[TColumnValue(b"a", b"q", b"v")]))
    client.disableTable(t)
    client.truncateTable(t, True)
    assert client.isTableEnabled(t)
    assert client.isTableAvailableWithSplit(t, [b"g", b"p"])
    assert client.getScannerResults(t.qualifier, TScan(), 10) == []
    client.disableTable(t)
    client.deleteTable(t)
    assert not client.tableExists(t)
    with pytest.raises(TIOError) as err:
        client.getTableDescriptor(t)
    assert "TableNotFoundException" in err.value.message


def test_puts_gets_and_deletes(client, server):
    _, name = create(client, server, "data")
    client.put(name, TPut(row=b"r1", columnValues=[
        TColumnValue(b"f", b"a", b"1", timestamp=100),
        TColumnValue(b"f", b"a", b"2", timestamp=200),
        TColumnValue(b"f", b"b", b"x"),
    ], durability=TDurability.SYNC_WAL))
    got = client.get(name, TGet(row=b"r1"))
    assert got.row == b"r1"
    assert values(got) == {(b"f", b"a"): b"2", (b"f", b"b"): b"x"}
    assert {cv.timestamp for cv in got.columnValues if cv.qualifier == b"a"} == {200}
    # Versions, a time range, a timestamp, columns.
    versions = client.get(name, TGet(row=b"r1", columns=[TColumn(b"f", b"a")], maxVersions=3))
    assert [cv.value for cv in versions.columnValues] == [b"2", b"1"]
    ranged = client.get(name, TGet(row=b"r1", timeRange=TTimeRange(0, 150)))
    assert values(ranged) == {(b"f", b"a"): b"1"}
    at = client.get(name, TGet(row=b"r1", timestamp=200))
    assert values(at) == {(b"f", b"a"): b"2"}
    family_only = client.get(name, TGet(row=b"r1", columns=[TColumn(b"f")]))
    assert len(family_only.columnValues) == 2
    filtered = client.get(name, TGet(row=b"r1", filterString=b"QualifierFilter(=, 'binary:b')"))
    assert values(filtered) == {(b"f", b"b"): b"x"}
    empty = client.get(name, TGet(row=b"missing"))
    assert empty.row is None and empty.columnValues == []

    assert client.exists(name, TGet(row=b"r1"))
    assert not client.exists(name, TGet(row=b"missing"))
    client.putMultiple(name, [
        TPut(row=b"r2", columnValues=[TColumnValue(b"f", b"a", b"two")]),
        TPut(row=b"r3", columnValues=[TColumnValue(b"f", b"a", b"three")], timestamp=50),
    ])
    assert client.existsAll(name, [TGet(row=b"r2"), TGet(row=b"nope"), TGet(row=b"r3")]) == [
        True, False, True]
    many = client.getMultiple(name, [TGet(row=b"r3"), TGet(row=b"nope"), TGet(row=b"r2")])
    assert [r.row for r in many] == [b"r3", None, b"r2"]
    assert many[0].columnValues[0].timestamp == 50

    # Delete types: one version, all versions, the family, one family version.
    client.deleteSingle(name, TDelete(row=b"r1", columns=[TColumn(b"f", b"a")],
                                      deleteType=TDeleteType.DELETE_COLUMN))
    assert values(client.get(name, TGet(row=b"r1", columns=[TColumn(b"f", b"a")]))) == {
        (b"f", b"a"): b"1"}
    client.deleteSingle(name, TDelete(row=b"r1", columns=[TColumn(b"f", b"a")]))
    assert values(client.get(name, TGet(row=b"r1"))) == {(b"f", b"b"): b"x"}
    client.put(name, TPut(row=b"r4", columnValues=[
        TColumnValue(b"f", b"a", b"old", timestamp=10),
        TColumnValue(b"f", b"b", b"old", timestamp=10),
        TColumnValue(b"f", b"b", b"new", timestamp=20),
    ]))
    client.deleteSingle(name, TDelete(row=b"r4", columns=[TColumn(b"f", b"a", timestamp=10)],
                                      deleteType=TDeleteType.DELETE_FAMILY_VERSION))
    assert values(client.get(name, TGet(row=b"r4"))) == {(b"f", b"b"): b"new"}
    with pytest.raises(TIOError) as err:
        client.deleteSingle(name, TDelete(row=b"r4", columns=[TColumn(b"f", b"a")],
                                          deleteType=TDeleteType.DELETE_FAMILY_VERSION))
    assert "Timestamp is required" in err.value.message
    client.deleteSingle(name, TDelete(row=b"r4", columns=[TColumn(b"f", b"b")],
                                      deleteType=TDeleteType.DELETE_FAMILY))
    assert client.get(name, TGet(row=b"r4")).columnValues == []
    assert client.deleteMultiple(name, [TDelete(row=b"r2"), TDelete(row=b"r3")]) == []
    assert client.existsAll(name, [TGet(row=b"r2"), TGet(row=b"r3")]) == [False, False]


def test_atomic_operations(client, server):
    _, name = create(client, server, "atomic")
    row = b"acct"
    put = TPut(row=row, columnValues=[TColumnValue(b"f", b"state", b"open")])
    assert client.checkAndPut(name, row, b"f", b"state", None, put)
    assert not client.checkAndPut(name, row, b"f", b"state", None, put)
    assert client.checkAndPut(name, row, b"f", b"state", b"open", TPut(
        row=row, columnValues=[TColumnValue(b"f", b"state", b"held")]))
    assert not client.checkAndDelete(name, row, b"f", b"state", b"open", TDelete(row=row))
    mutations = TRowMutations(row=row, mutations=[
        TMutation(put=TPut(row=row, columnValues=[TColumnValue(b"f", b"note", b"m")])),
        TMutation(deleteSingle=TDelete(row=row, columns=[TColumn(b"f", b"state")])),
    ])
    # "held" > "abc": GREATER passes when the expected value is greater than the cell's, so
    # LESS does here.
    assert not client.checkAndMutate(name, row, b"f", b"state", TCompareOp.GREATER,
                                     b"abc", mutations)
    assert client.checkAndMutate(name, row, b"f", b"state", TCompareOp.LESS, b"abc",
                                 mutations)
    assert values(client.get(name, TGet(row=row))) == {(b"f", b"note"): b"m"}
    client.mutateRow(name, TRowMutations(row=row, mutations=[
        TMutation(put=TPut(row=row, columnValues=[TColumnValue(b"f", b"x", b"1")])),
        TMutation(deleteSingle=TDelete(row=row, columns=[TColumn(b"f", b"note")])),
    ]))
    assert values(client.get(name, TGet(row=row))) == {(b"f", b"x"): b"1"}
    assert client.checkAndDelete(name, row, b"f", b"x", b"1", TDelete(row=row))
    assert client.get(name, TGet(row=row)).columnValues == []

    inc = client.increment(name, TIncrement(row=b"n", columns=[
        TColumnIncrement(b"f", b"hits"), TColumnIncrement(b"f", b"bytes", 40)]))
    assert values(inc) == {(b"f", b"hits"): (1).to_bytes(8, "big"),
                           (b"f", b"bytes"): (40).to_bytes(8, "big")}
    quiet = client.increment(name, TIncrement(row=b"n", columns=[TColumnIncrement(b"f", b"hits", 5)],
                                              returnResults=False))
    assert quiet.columnValues == []
    assert values(client.get(name, TGet(row=b"n", columns=[TColumn(b"f", b"hits")]))) == {
        (b"f", b"hits"): (6).to_bytes(8, "big")}
    app = client.append(name, TAppend(row=b"s", columns=[TColumnValue(b"f", b"log", b"ab")]))
    assert values(app) == {(b"f", b"log"): b"ab"}
    app = client.append(name, TAppend(row=b"s", columns=[TColumnValue(b"f", b"log", b"cd")]))
    assert values(app) == {(b"f", b"log"): b"abcd"}


def test_scanners(client, server):
    t, name = create(client, server, "scan", families=(b"f", b"g"), splits=[b"r05"])
    client.putMultiple(name, [
        TPut(row=b"r%02d" % i, columnValues=[
            TColumnValue(b"f", b"a", b"%d" % i, timestamp=1000 + i),
            TColumnValue(b"g", b"b", b"g%d" % i, timestamp=1000 + i),
        ]) for i in range(10)
    ])
    scanner = client.openScanner(name, TScan(startRow=b"r02", stopRow=b"r08", columns=[TColumn(b"f")]))
    first = client.getScannerRows(scanner, 4)
    rest = client.getScannerRows(scanner, 10)
    assert [r.row for r in first] == [b"r02", b"r03", b"r04", b"r05"]
    assert [r.row for r in rest] == [b"r06", b"r07"]
    assert client.getScannerRows(scanner, 10) == []
    assert all(list(values(r)) == [(b"f", b"a")] for r in first + rest)
    client.closeScanner(scanner)
    with pytest.raises(TIllegalArgument) as err:
        client.getScannerRows(scanner, 1)
    assert err.value.message == "Invalid scanner Id"
    with pytest.raises(TIllegalArgument):
        client.closeScanner(scanner)

    reversed_rows = client.getScannerResults(name, TScan(reversed=True, limit=3), 10)
    assert [r.row for r in reversed_rows] == [b"r09", b"r08", b"r07"]
    assert [r.row for r in client.getScannerResults(name, TScan(), 2)] == [b"r00", b"r01"]
    ranged = client.getScannerResults(name, TScan(timeRange=TTimeRange(1003, 1005)), 100)
    assert [r.row for r in ranged] == [b"r03", b"r04"]
    per_family = client.getScannerResults(
        name, TScan(colFamTimeRangeMap={b"g": TTimeRange(1009, 1010)}), 100)
    assert values(per_family[-1]) == {(b"f", b"a"): b"9", (b"g", b"b"): b"g9"}
    assert values(per_family[0]) == {(b"f", b"a"): b"0"}
    batched = client.getScannerResults(name, TScan(startRow=b"r01", batchSize=1, limit=1), 10)
    assert [len(r.columnValues) for r in batched] == [1, 1]
    filtered = client.getScannerResults(
        name, TScan(filterString=b"PrefixFilter('r0') AND ValueFilter(=, 'binary:7')"), 100)
    assert [r.row for r in filtered] == [b"r07"]


def test_region_locations(client, server):
    t, name = create(client, server, "regions", splits=[b"m"])
    locations = client.getAllRegionLocations(name)
    assert [(loc.regionInfo.startKey, loc.regionInfo.endKey) for loc in locations] == [
        (b"", b"m"), (b"m", b"")]
    for loc in locations:
        assert loc.regionInfo.tableName == name
        assert loc.regionInfo.regionId > 0
        assert loc.serverName.hostName and loc.serverName.port > 0
    loc = client.getRegionLocation(name, b"q", False)
    assert loc.regionInfo.startKey == b"m"
    assert client.getRegionLocation(name, b"a", True).regionInfo.endKey == b"m"


def refusals(client, name):
    """Every field docs/design/thrift2.md lists as refused (wholly or for some values): a call
    that sets it, and the name the error must give."""
    cv = [TColumnValue(b"f", b"q", b"v")]
    return {
        "TGet.attributes": (lambda: client.get(name, TGet(row=b"r", attributes={b"a": b"b"})),
                            "TGet.attributes[a]"),
        "TGet.authorizations": (lambda: client.get(name, TGet(row=b"r", authorizations=TAuthorization(["x"]))),
                                "TGet.authorizations"),
        "TAuthorization.labels": (lambda: client.getScannerResults(
            name, TScan(authorizations=TAuthorization(["x"])), 1), "TScan.authorizations"),
        "TGet.targetReplicaId": (lambda: client.get(name, TGet(row=b"r", targetReplicaId=1)),
                                 "TGet.targetReplicaId"),
        "TGet.storeLimit": (lambda: client.get(name, TGet(row=b"r", storeLimit=1)), "TGet.storeLimit"),
        "TGet.storeOffset": (lambda: client.get(name, TGet(row=b"r", storeOffset=1)), "TGet.storeOffset"),
        "TColumn.timestamp": (lambda: client.get(name, TGet(row=b"r", columns=[TColumn(b"f", b"q", 5)])),
                              "TGet.columns[].timestamp"),
        "TPut.attributes": (lambda: client.put(name, TPut(row=b"r", columnValues=cv, attributes={b"owner": b"x"})),
                            "TPut.attributes[owner]"),
        "TPut.cellVisibility": (lambda: client.put(name, TPut(row=b"r", columnValues=cv,
                                                              cellVisibility=TCellVisibility("x"))),
                                "TPut.cellVisibility"),
        "TCellVisibility.expression": (lambda: client.increment(name, TIncrement(
            row=b"r", columns=[TColumnIncrement(b"f", b"n")], cellVisibility=TCellVisibility("x"))),
            "TIncrement.cellVisibility"),
        "TColumnValue.timestamp": (lambda: client.append(name, TAppend(
            row=b"r", columns=[TColumnValue(b"f", b"q", b"v", timestamp=5)])), "TAppend.columns[].timestamp"),
        "TColumnValue.tags": (lambda: client.put(name, TPut(row=b"r", columnValues=[
            TColumnValue(b"f", b"q", b"v", tags=b"t")])), "TPut.columnValues[].tags"),
        "TColumnValue.type": (lambda: client.put(name, TPut(row=b"r", columnValues=[
            TColumnValue(b"f", b"q", b"v", type=8)])), "TPut.columnValues[].type"),
        "TDelete.attributes": (lambda: client.deleteSingle(name, TDelete(row=b"r", attributes={b"a": b"b"})),
                               "TDelete.attributes[a]"),
        "TIncrement.attributes": (lambda: client.increment(name, TIncrement(
            row=b"r", columns=[TColumnIncrement(b"f", b"n")], attributes={b"a": b"b"})),
            "TIncrement.attributes[a]"),
        "TIncrement.cellVisibility": (lambda: client.increment(name, TIncrement(
            row=b"r", columns=[TColumnIncrement(b"f", b"n")], cellVisibility=TCellVisibility("x"))),
            "TIncrement.cellVisibility"),
        "TAppend.attributes": (lambda: client.append(name, TAppend(row=b"r", columns=cv, attributes={b"a": b"b"})),
                               "TAppend.attributes[a]"),
        "TAppend.cellVisibility": (lambda: client.append(name, TAppend(row=b"r", columns=cv,
                                                                       cellVisibility=TCellVisibility("x"))),
                                   "TAppend.cellVisibility"),
        "TScan.attributes": (lambda: client.openScanner(name, TScan(attributes={b"a": b"b"})),
                             "TScan.attributes[a]"),
        "TScan.authorizations": (lambda: client.openScanner(name, TScan(authorizations=TAuthorization(["x"]))),
                                 "TScan.authorizations"),
        "TScan.targetReplicaId": (lambda: client.openScanner(name, TScan(targetReplicaId=2)),
                                  "TScan.targetReplicaId"),
    }


DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "design", "thrift2.md")
ROW = re.compile(r"^\| `(\w+)\.(\w+)` \((\d+)\) \| (.+) \|$")


def documented():
    """{"Struct.field": (id, served)} from the tables of docs/design/thrift2.md."""
    out = {}
    with open(DOC) as f:
        for line in f:
            match = ROW.match(line.strip())
            if match:
                owner, field, fid, served = match.groups()
                out[f"{owner}.{field}"] = (int(fid), served)
    return out


def request_fields():
    """{"Struct.field" or "method.argument": id} for every method's arguments and every struct
    they reach, from the generated code's thrift_spec (HBase's IDL)."""
    out = {}
    seen = set()

    def reach(ttype, arg):
        if ttype == TType.STRUCT:
            walk(arg[0].__name__, arg[0])
        elif ttype in (TType.LIST, TType.SET):
            reach(arg[0], arg[1])
        elif ttype == TType.MAP:
            reach(arg[0], arg[1])
            reach(arg[2], arg[3])

    def walk(owner, cls):
        if owner in seen:
            return
        seen.add(owner)
        for spec in cls.thrift_spec:
            if spec is None:
                continue
            fid, ttype, fname, arg = spec[0], spec[1], spec[2], spec[3]
            out[f"{owner}.{fname}"] = fid
            reach(ttype, arg)

    for method in THBaseService.Iface.__dict__:
        if not method.startswith("_"):
            walk(method, getattr(THBaseService, method + "_args"))
    return out


def test_every_request_field_is_in_the_table():
    table = documented()
    fields = request_fields()
    missing = sorted(set(fields) - set(table))
    assert not missing, f"request fields missing from docs/design/thrift2.md: {missing}"
    stale = sorted(set(table) - set(fields))
    assert not stale, f"docs/design/thrift2.md lists fields the IDL lacks: {stale}"
    wrong = sorted(k for k in fields if table[k][0] != fields[k])
    assert not wrong, f"field ids differ from the IDL's: {wrong}"
    for key, (_, served) in table.items():
        assert served.startswith(("honoured", "refused")), f"{key}: {served}"


def test_refused_fields_are_refused_by_name(client, server):
    _, name = create(client, server, "refused")
    cases = refusals(client, name)
    listed = {k for k, (_, served) in documented().items() if "refused" in served}
    assert listed == set(cases), (sorted(listed - set(cases)), sorted(set(cases) - listed))
    for key, (call, named) in cases.items():
        with pytest.raises(TIOError) as err:
            call()
        assert named in err.value.message, (key, err.value.message)
        assert not err.value.canRetry, key
    with pytest.raises(TIOError) as err:
        client.getScannerResults(name, TScan(filterString=b"NoSuchFilter()"), 1)
    assert "TScan.filterString" in err.value.message
    # A cell TTL in the _ttl attribute is honoured, and a raw scan in _raw_.
    client.put(name, TPut(row=b"t", columnValues=[TColumnValue(b"f", b"q", b"v")],
                          attributes={b"_ttl": (3_600_000).to_bytes(8, "big")}))
    assert client.exists(name, TGet(row=b"t"))
    client.deleteSingle(name, TDelete(row=b"t"))
    raw = client.getScannerResults(name, TScan(attributes={b"_raw_": b"\xff"}, maxVersions=10), 10)
    assert [r.row for r in raw] == [b"t"] and len(raw[0].columnValues) == 2


def test_slow_log_and_permissions(client, server):
    records = client.getSlowLogResponses([], TLogQueryFilter(limit=5))
    assert isinstance(records, list) and len(records) <= 5
    cleared = client.clearSlowLogResponses([])
    assert cleared and all(cleared)
    t, _ = create(client, server, "acl")
    entity = TAccessControlEntity(username="alice", scope=TPermissionScope.TABLE, actions="RW",
                                  tableName=t)
    assert client.grant(entity)
    assert client.getUserPermission(t.qualifier.decode(), TPermissionScope.TABLE) == {"alice": "RW"}
    assert client.revoke(entity)
    assert client.getUserPermission(t.qualifier.decode(), TPermissionScope.TABLE) == {}
