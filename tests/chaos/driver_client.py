"""One fault-campaign client on hbase-driver (issue 45): reads operations as JSON lines on
stdin and answers each with one JSON line on stdout, {"ok": ...} or {"error": "..."}.

    driver_client.py QUORUM TABLE

Operations (every key's cells are in family f; see crates/chaos/src/workload.rs):
{"op": "read"|"read-list"|"read-counter"|"read-row", "row": R},
{"op": "write", "row": R, "value": V}, {"op": "cas", "row": R, "from": A, "to": B},
{"op": "append", "row": R, "value": V}, {"op": "increment", "row": R, "by": N}.
The campaign kills this process when an answer takes too long (hbase-driver has no timeouts
of its own) and starts another.
"""
import json
import sys

from hbasedriver.client.client import Client
from hbasedriver.operations.append import Append
from hbasedriver.operations.get import Get
from hbasedriver.operations.increment import CheckAndPut, Increment
from hbasedriver.operations.put import Put

F = b"f"


def number(value):
    if value is None or len(value) != 8:
        return None
    return int.from_bytes(value, "big", signed=True)


def items(value):
    return [int(p) for p in (value or b"").decode().split(",") if p]


def column(table, row, qualifier):
    got = table.get(Get(row).add_column(F, qualifier))
    return got.get(F, qualifier) if got else None


def run(table, req):
    op, row = req["op"], req["row"].encode()
    if op == "read":
        return number(column(table, row, b"v"))
    if op == "read-list":
        return items(column(table, row, b"v"))
    if op == "read-counter":
        return number(column(table, row, b"v")) or 0
    if op == "read-row":
        got = table.get(Get(row).add_column(F, b"a").add_column(F, b"b"))
        return [number(got.get(F, b"a")), number(got.get(F, b"b"))] if got else [None, None]
    if op == "write":
        put = Put(row).add_column(F, b"v", req["value"].to_bytes(8, "big", signed=True))
        return table.put(put) is not False
    if op == "cas":
        cap = CheckAndPut(row)
        cap.set_check(F, b"v", req["from"].to_bytes(8, "big", signed=True))
        cap.set_put(Put(row).add_column(F, b"v", req["to"].to_bytes(8, "big", signed=True)))
        return bool(table.check_and_put(cap))
    if op == "append":
        got = table.append(Append(row).add_column(F, b"v", f",{req['value']}".encode()))
        return items(got.get(F, b"v")) if got else None
    if op == "increment":
        inc = Increment(row)
        inc.add_column(F, b"v", req["by"])
        return table.increment(inc)
    raise ValueError(f"unknown operation {op}")


def main():
    quorum, name = sys.argv[1], sys.argv[2]
    client = Client({"hbase.zookeeper.quorum": quorum})
    table = client.get_table(b"default", name.encode())
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        try:
            answer = {"ok": run(table, json.loads(line))}
        except Exception as e:  # every failure is the operation's, reported to the campaign
            answer = {"error": f"{type(e).__name__}: {e}"}
            print(f"{line.strip()}: {answer['error']}", file=sys.stderr, flush=True)
            try:
                table.invalidate_cache()
            except Exception:
                pass
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
