"""Reads `basalt pe --compare-rocksdb --json` lines on stdin; prints "BASALT ROCKSDB" (ops/s)
of the first comparison whose name contains the argument (`randomRead`, `workloadc run`)."""

import json
import sys

for line in sys.stdin:
    line = line.strip()
    if line.startswith("{") and '"compare"' in line:
        r = json.loads(line)
        if sys.argv[1] in r["compare"]:
            print("%.0f %.0f" % (r["basalt_ops_per_second"], r["rocksdb_ops_per_second"]))
            break
else:
    sys.exit("no comparison named " + sys.argv[1])
