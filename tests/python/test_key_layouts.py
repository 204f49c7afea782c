"""Issue 34 through the gateways: a table with a key layout (made in `basalt shell` over the
native RPC) is written and read by its logical keys through the Thrift gateway (happybase)
and the REST gateway, which add and remove the stored prefix, and scans come back in
logical key order."""

import subprocess

import happybase
import requests

from conftest import BASALT, Basalt


def test_a_salted_table_through_thrift_and_rest(tmp_path):
    basalt = Basalt(tmp_path / "data", "--rpc-port", "0", "--rest-port", "0")
    try:
        rpc = basalt.read_address("rpc (ClientService, AdminService, MasterService)")
        rest = basalt.read_address("rest")
        made = subprocess.run(
            [BASALT, "shell", "--connect", rpc, "-n"],
            input="create 'orders', 'o', SALT => {BUCKETS => 8}\n",
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert made.returncode == 0, made.stdout + made.stderr

        conn = happybase.Connection("127.0.0.1", basalt.port)
        table = conn.table("orders")
        keys = [b"order-%04d" % i for i in range(1, 41)]
        for k in reversed(keys):
            table.put(k, {b"o:total": k[-2:]})
        assert table.row(b"order-0007") == {b"o:total": b"07"}
        assert [k for k, _ in table.scan()] == keys
        assert [k for k, _ in table.scan(row_start=b"order-0010", row_stop=b"order-0013")] == [
            b"order-0010",
            b"order-0011",
            b"order-0012",
        ]
        assert [k for k, _ in table.scan(row_prefix=b"order-003")] == keys[29:39]
        table.delete(b"order-0007")
        assert table.row(b"order-0007") == {}
        conn.close()

        cell = requests.get(
            f"http://{rest}/orders/order-0012/o:total",
            headers={"Accept": "application/octet-stream"},
            timeout=30,
        )
        assert cell.status_code == 200 and cell.content == b"12"
        put = requests.put(
            f"http://{rest}/orders/order-0100/o:total",
            data=b"100",
            headers={"Content-Type": "application/octet-stream"},
            timeout=30,
        )
        assert put.status_code == 200, put.text
        conn = happybase.Connection("127.0.0.1", basalt.port)
        assert conn.table("orders").row(b"order-0100") == {b"o:total": b"100"}
        conn.close()
    finally:
        code, _, err = basalt.stop()
        assert code == 0, err
