"""HBase's REST gateway, driven by the REST clients users have: hbase-rest-py and starbase
(from PyPI), against a real `basalt standalone --rest-port`. Raw HTTP tests of what they do
not cover (XML, protobuf, scanners with filters) are in crates/rest/tests/rest.rs."""

import json
import struct

import pytest
import requests
from starbase import Connection

from hbase import scan_filter_helper
from hbase.admin import HBaseAdmin
from hbase.delete import Delete
from hbase.get import Get
from hbase.put import Put
from hbase.rest_client import HBaseRESTClient
from hbase.scan import Scan

from conftest import Basalt


@pytest.fixture(scope="module")
def rest(tmp_path_factory):
    basalt = Basalt(tmp_path_factory.mktemp("data"), "--rest-port", "0")
    address = basalt.read_address("rest")
    basalt.url = f"http://{address}"
    basalt.host, basalt.rest_port = address.rsplit(":", 1)
    yield basalt
    code, out, err = basalt.stop()
    assert code == 0, err
    assert "stopped" in out


def test_hbase_rest_py_admin(rest):
    client = HBaseRESTClient([rest.url])
    admin = HBaseAdmin(client)
    assert json.loads(admin.cluster_version())["Version"].startswith("2.")
    status = json.loads(admin.cluster_status())
    assert len(status["LiveNodes"]) == 1
    assert admin.table_create_or_update("hrp", [{"name": "cf", "VERSIONS": "3"}]) == ""
    assert {"name": "hrp"} in json.loads(admin.tables())["table"]
    schema = json.loads(admin.table_schema("hrp"))
    assert schema["name"] == "hrp"
    assert schema["ColumnSchema"][0]["VERSIONS"] == "3"
    regions = json.loads(admin.table_regions("hrp"))
    assert len(regions["Region"]) == 1
    assert regions["Region"][0]["location"].startswith("127.0.0.1:")
    assert admin.namespace_create("hrpns") == ""
    assert "hrpns" in json.loads(admin.namespaces())["Namespace"]
    assert admin.namespace_delete("hrpns") == ""
    missing = admin.table_schema("nosuchtable")
    assert missing["status_code"] == 404


def test_hbase_rest_py_data(rest):
    client = HBaseRESTClient([rest.url])
    HBaseAdmin(client).table_create_or_update("hrpdata", [{"name": "cf", "VERSIONS": "3"}])
    put, get = Put(client), Get(client)
    assert put.put("hrpdata", "row1", {"cf:a": "v1", "cf:n": 42}) == ""
    assert put.put("hrpdata", "row1", {"cf:a": "v0"}, timestamp=5) == ""
    rows = [(f"bulk{i}", {"cf:a": f"b{i}"}) for i in range(5)]
    assert put.bulk("hrpdata", rows) == ""

    got = get.get("hrpdata", "row1")
    cells = {c["column"]: c["$"] for c in got["row"][0]["cell"]}
    assert cells[b"cf:a"] == b"v1"
    assert struct.unpack(">q", cells[b"cf:n"])[0] == 42
    one = get.get("hrpdata", "row1", column_family="cf:a")
    assert [c["$"] for c in one["row"][0]["cell"]] == [b"v1"]
    versions = get.get("hrpdata", "row1", column_family="cf:a", number_of_versions=2)
    assert [c["$"] for c in versions["row"][0]["cell"]] == [b"v1", b"v0"]
    at = get.get("hrpdata", "row1", column_family="cf:a", timestamp=5)
    assert [c["$"] for c in at["row"][0]["cell"]] == [b"v0"]
    assert get.get("hrpdata", "nosuchrow")["status_code"] == 404

    scan = Scan(client)
    seen = []
    more, result = scan.scan("hrpdata", scan_filter_helper.build_prefix_filter("bulk", batch=2))
    while more:
        seen += [r["key"] for r in result["row"]]
        more, result = scan.scan_next()
    assert sorted(set(seen)) == [f"bulk{i}".encode() for i in range(5)]

    Delete(client).delete("hrpdata", "row1")
    assert get.get("hrpdata", "row1")["status_code"] == 404


def test_starbase(rest):
    c = Connection(host=rest.host, port=int(rest.rest_port))
    assert c.cluster_version["Version"].startswith("2.")
    assert c.version["REST"] == "0.0.3"
    assert len(c.cluster_status["LiveNodes"]) == 1
    t = c.table("sb")
    assert t.create("c1", "c2") == 201
    assert t.exists()
    assert "sb" in c.tables()
    assert sorted(t.columns()) == ["c1", "c2"]

    assert t.insert("row1", {"c1": {"a": "1", "b": "2"}, "c2": {"x": "y"}}) == 200
    assert t.fetch("row1") == {"c1": {"a": "1", "b": "2"}, "c2": {"x": "y"}}
    assert t.fetch("row1", ["c1"]) == {"c1": {"a": "1", "b": "2"}}
    assert t.fetch("row1", {"c1": ["a"]}) == {"c1": {"a": "1"}}
    assert t.update("row1", {"c1": {"a": "changed"}}) == 200
    assert t.fetch("row1", {"c1": ["a"]}) == {"c1": {"a": "changed"}}

    assert t.remove("row1", "c2", "x") == 200
    assert t.fetch("row1", ["c2"]) is None
    assert t.remove("row1", "c1") == 200
    assert t.fetch("row1") is None

    batch = t.batch()
    for i in range(10):
        batch.insert(f"batch{i:02d}", {"c1": {"n": str(i)}})
    batch.commit(finalize=True)
    rows = list(t.fetch_all_rows(with_row_id=True))
    assert len(rows) == 10
    assert rows[0] == {"batch00": {"c1": {"n": "0"}}}
    regex = json.dumps(
        {
            "type": "RowFilter",
            "op": "EQUAL",
            "comparator": {"type": "RegexStringComparator", "value": "^batch0[357]$"},
        }
    )
    filtered = list(t.fetch_all_rows(with_row_id=True, filter_string=regex))
    assert [list(r)[0] for r in filtered] == ["batch03", "batch05", "batch07"]

    assert t.add_columns("c3") == 200
    assert sorted(t.columns()) == ["c1", "c2", "c3"]
    assert t.drop_columns("c3") == 200
    assert sorted(t.columns()) == ["c1", "c2"]
    assert t.regions()["name"] == "sb"
    assert t.drop() == 200
    assert not t.exists()


def test_raw_errors_and_binary_values(rest):
    url = rest.url
    r = requests.put(
        f"{url}/raw/schema",
        data='<TableSchema name="raw"><ColumnSchema name="cf"/></TableSchema>',
        headers={"Content-Type": "text/xml"},
        timeout=10,
    )
    assert r.status_code == 201
    r = requests.put(
        f"{url}/raw/r%2F1/cf:q",
        data=b"\x00\x01\xff",
        headers={"Content-Type": "application/octet-stream", "X-Timestamp": "9"},
        timeout=10,
    )
    assert r.status_code == 200, r.text
    r = requests.get(
        f"{url}/raw/r%2F1/cf:q", headers={"Accept": "application/octet-stream"}, timeout=10
    )
    assert r.content == b"\x00\x01\xff"
    assert r.headers["X-Timestamp"] == "9"
    assert requests.get(f"{url}/raw/nope", headers={"Accept": "application/json"}, timeout=10).status_code == 404
    assert requests.get(f"{url}/nope/r", headers={"Accept": "application/json"}, timeout=10).status_code == 404
    assert requests.get(f"{url}/raw/r/cf/x", timeout=10).status_code == 400
