"""No Thrift1 request field silently ignored (issue 49): every argument of every method of
`Hbase.thrift` and every struct they reach (from happybase's copy of the IDL, read with
thriftpy2, plus the HBase 2.x additions that copy lacks) has a row in docs/design/thrift.md,
honoured or refused; a refused one (a non-empty `attributes`) is refused by name."""

import os
import re

import happybase
import pytest
import thriftpy2
from thriftpy2.thrift import TType

from conftest import Basalt

# HBase 2.x's Hbase.thrift beyond happybase's copy: TScan.cacheBlocks, and grant/revoke with
# their TAccessControlEntity (getThriftServerType and getClusterId take no arguments).
HBASE2_ADDITIONS = {
    "TScan.cacheBlocks": 10,
    "grant.info": 1,
    "revoke.info": 1,
    "TAccessControlEntity.username": 1,
    "TAccessControlEntity.scope": 2,
    "TAccessControlEntity.actions": 4,
    "TAccessControlEntity.tableName": 5,
    "TAccessControlEntity.nsName": 6,
}

IDL = os.path.join(os.path.dirname(happybase.__file__), "Hbase.thrift")
DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "design", "thrift.md")
ROW = re.compile(r"^\| `(\w+)\.(\w+)` \((\d+)\) \| (.+) \|$")


def request_fields():
    """{"method.argument" or "Struct.field": id} from the IDL."""
    hbase = thriftpy2.load(IDL, module_name="Hbase_audit_thrift")
    out, seen = {}, set()

    def reach(ttype, arg):
        if ttype == TType.STRUCT and arg.__name__ not in seen:
            seen.add(arg.__name__)
            walk(arg.__name__, arg.thrift_spec)
        elif ttype in (TType.LIST, TType.SET) and isinstance(arg, tuple):
            reach(arg[0], arg[1])

    def walk(owner, spec):
        for fid, f in spec.items():
            out[f"{owner}.{f[1]}"] = fid
            if len(f) > 3:
                reach(f[0], f[2])

    for method in hbase.Hbase.thrift_services:
        walk(method, getattr(hbase.Hbase, method + "_args").thrift_spec)
    out.update(HBASE2_ADDITIONS)
    return out


def documented():
    rows = {}
    in_section = False
    with open(DOC) as f:
        for line in f:
            if line.startswith("## "):
                in_section = line.startswith("## Every request field")
            match = ROW.match(line.strip())
            if in_section and match:
                owner, field, fid, served = match.groups()
                rows[f"{owner}.{field}"] = (int(fid), served)
    return rows


def test_every_thrift1_request_field_is_in_the_table():
    fields, table = request_fields(), documented()
    missing = sorted(set(fields) - set(table))
    assert not missing, f"fields missing from docs/design/thrift.md: {missing}"
    stale = sorted(set(table) - set(fields))
    assert not stale, f"docs/design/thrift.md lists fields the IDL lacks: {stale}"
    assert all(table[k][0] == fields[k] for k in fields)
    for key, (_, served) in table.items():
        assert served.startswith(("honoured", "refused")), (key, served)


@pytest.fixture(scope="module")
def standalone(tmp_path_factory):
    basalt = Basalt(tmp_path_factory.mktemp("fields"))
    yield basalt
    code, _, err = basalt.stop()
    assert code == 0, err


def test_attributes_are_refused_by_name(standalone):
    conn = happybase.Connection("127.0.0.1", standalone.port)
    conn.create_table("t", {"f": {}})
    client = conn.client
    refused = [k for k, (_, served) in documented().items() if served.startswith("refused")]
    assert refused and all(k.endswith(".attributes") for k in refused)
    with pytest.raises(Exception) as err:
        client.getRow(b"t", b"r", {b"_isolationlevel_": b"x"})
    assert "getRow.attributes" in str(err.value), err.value
    with pytest.raises(Exception) as err:
        client.mutateRow(b"t", b"r", [], {b"a": b"b"})
    assert "mutateRow.attributes" in str(err.value), err.value
    # An empty map, as happybase sends, is what HBase does without attributes.
    assert client.getRow(b"t", b"r", {}) == []
    conn.close()
