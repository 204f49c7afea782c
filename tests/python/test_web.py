"""The info pages in a real headless browser (Debian's chromium, driven by selenium): a
`basalt standalone` gets a workload through happybase with one hot region, and the master,
table and region server pages must load, link to each other and show the numbers the
workload made. Each page's screenshot is saved under target/web-screenshots/ for a person to
look at."""

import os
import pathlib
import subprocess
import time
import urllib.request

import happybase
import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from conftest import BASALT, Basalt

SHOTS = pathlib.Path(__file__).resolve().parents[2] / "target" / "web-screenshots"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    basalt = Basalt(tmp_path_factory.mktemp("data"), "--rpc-port", "0")
    basalt.rpc = basalt.read_address("rpc (ClientService, AdminService, MasterService)")
    basalt.info = basalt.read_address("info")
    yield basalt
    code, _, err = basalt.stop()
    assert code == 0, err


@pytest.fixture(scope="module")
def browser():
    options = Options()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1400,1000"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def shoot(browser, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    browser.save_screenshot(str(path))
    assert path.stat().st_size > 1000


def cells(row):
    return [td.text for td in row.find_elements(By.TAG_NAME, "td")]


def test_pages_show_the_workload(cluster, browser):
    # A table in two regions, the second one hot: 60 writes there, 5 in the first, then
    # 200 reads of one row of the second.
    conn = happybase.Connection("127.0.0.1", cluster.port, autoconnect=True)
    conn.create_table("web", {"f": dict()})
    shell = subprocess.run(
        [BASALT, "shell", "--connect", cluster.rpc, "-n"],
        input="split 'web', 'm'\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shell.returncode == 0, shell.stderr
    t = conn.table("web")
    for i in range(5):
        t.put(f"a{i}".encode(), {b"f:q": b"cold"})
    for i in range(60):
        t.put(f"x{i:02d}".encode(), {b"f:q": b"hot"})
    for _ in range(200):
        assert t.row(b"x07") == {b"f:q": b"hot"}
    conn.close()

    base = f"http://{cluster.info}"
    browser.get(base + "/")
    assert browser.current_url.endswith("/master-status")
    assert browser.find_element(By.ID, "servers").text == "1"
    assert int(browser.find_element(By.ID, "regions").text) >= 3  # meta's and web's two
    tables = browser.find_element(By.ID, "tables")
    web_row = [r for r in tables.find_elements(By.TAG_NAME, "tr") if cells(r)[:1] == ["web"]]
    assert web_row, tables.text
    assert cells(web_row[0])[1:3] == ["enabled", "2"]
    shoot(browser, "master-status")

    # The table page, through its link.
    browser.find_element(By.LINK_TEXT, "web").click()
    assert "/table.jsp?name=web" in browser.current_url
    assert browser.find_element(By.ID, "table-name").text == "web"
    rows = browser.find_elements(By.CSS_SELECTOR, "#regions tr.region")
    assert len(rows) == 2
    first, second = rows
    assert cells(first)[1] == "" and cells(first)[2] == "m"
    assert cells(second)[1] == "m" and cells(second)[2] == ""
    assert first.find_element(By.CSS_SELECTOR, "td.writes").text == "5"
    assert second.find_element(By.CSS_SELECTOR, "td.writes").text == "60"
    assert int(second.find_element(By.CSS_SELECTOR, "td.reads").text) >= 200
    # The hot region's bar is the full width; the cold one's a sliver.
    hot_bar = second.find_element(By.CSS_SELECTOR, ".bar span.read").size["width"]
    cold_bar = first.find_element(By.CSS_SELECTOR, ".bar span.read").size["width"]
    assert hot_bar > 10 * max(cold_bar, 1), (hot_bar, cold_bar)
    shoot(browser, "table")

    # The region server page, through the header's link.
    browser.find_element(By.LINK_TEXT, "Region server").click()
    assert browser.current_url.endswith("/rs-status")
    assert int(browser.find_element(By.ID, "region-count").text) >= 3
    assert int(browser.find_element(By.ID, "op-put").text) >= 65
    assert int(browser.find_element(By.ID, "op-get").text) >= 200
    assert int(browser.find_element(By.ID, "wal-appends").text) >= 65
    regions = browser.find_element(By.ID, "rs-regions").text
    assert "web" in regions and "hbase:meta" in regions
    shoot(browser, "rs-status")

    # Metrics and JMX are linked too, and the stylesheet loads.
    browser.find_element(By.LINK_TEXT, "Metrics").click()
    assert 'basalt_regionserver_requests_total{op="put"}' in browser.page_source
    browser.get(base + "/jmx?qry=Hadoop:service=HBase,name=RegionServer,sub=Server")
    assert "Put_num_ops" in browser.page_source
    with urllib.request.urlopen(base + "/static/basalt.css", timeout=10) as r:
        assert r.status == 200 and b".bar" in r.read()


@pytest.fixture(scope="module")
def operated(tmp_path_factory):
    """A standalone server whose every call is slow (the slow log fills), for the operators'
    pages."""
    yield from standalone_with(tmp_path_factory.mktemp("ops"), "hbase.ipc.warn.response.time", "0")


def standalone_with(root, key, value):
    """A standalone server with its native RPC and info pages, one setting in its site file."""
    site = root / "hbase-site.xml"
    site.write_text(
        f"<configuration><property><name>{key}</name>"
        f"<value>{value}</value></property></configuration>"
    )
    basalt = Basalt(root / "data", "--rpc-port", "0", "--site", str(site))
    basalt.rpc = basalt.read_address("rpc (ClientService, AdminService, MasterService)")
    basalt.info = basalt.read_address("info")
    yield basalt
    if basalt.proc.poll() is None:
        basalt.stop()


def shell(server, commands):
    run = subprocess.run(
        [BASALT, "shell", "--connect", server.rpc, "-n"],
        input=commands,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


def test_operator_pages(operated, browser):
    shell(
        operated,
        "create 'ops', 'f'\nput 'ops', 'r1', 'f:q', 'v'\nget 'ops', 'r1'\n"
        "snapshot 'ops', 'ops_snap'\n",
    )
    base = f"http://{operated.info}"

    browser.get(base + "/rs-status")
    browser.find_element(By.LINK_TEXT, "Procedures").click()
    assert browser.current_url.endswith("/procedures.jsp")
    rows = [cells(r) for r in browser.find_elements(By.CSS_SELECTOR, "#procedures tr.procedure")]
    assert any(r[1] == "CreateTableProcedure" and r[2] == "SUCCESS" for r in rows), rows
    assert browser.find_element(By.ID, "no-locks").text
    shoot(browser, "procedures")

    browser.find_element(By.LINK_TEXT, "Snapshots").click()
    snaps = [cells(r) for r in browser.find_elements(By.CSS_SELECTOR, "#snapshots tr.snapshot")]
    assert snaps and snaps[0][:2] == ["ops_snap", "ops"], snaps

    browser.find_element(By.LINK_TEXT, "ZooKeeper").click()
    assert "ZooKeeper" in browser.find_element(By.ID, "zk-none").text

    browser.find_element(By.LINK_TEXT, "Slow log").click()
    slow = browser.find_element(By.ID, "slow-log").text
    assert "ClientService.Get" in slow and "ops,," in slow, slow
    shoot(browser, "slowlog")

    browser.get(base + "/conf")
    assert "hbase.ipc.warn.response.time" in browser.page_source
    with urllib.request.urlopen(base + "/conf?format=json", timeout=10) as r:
        props = {p["key"]: p["value"] for p in __import__("json").load(r)["properties"]}
    assert props["hbase.ipc.warn.response.time"] == "0"

    # A module's level changes through the form, and the server logs at it from then on.
    browser.get(base + "/logLevel")
    assert browser.find_element(By.ID, "level-flush").text == "INFO"
    browser.find_element(By.ID, "log").send_keys("flush")
    browser.find_element(By.ID, "level").send_keys("DEBUG")
    browser.find_element(By.ID, "set").click()
    # The form posts and a new page loads: wait for it rather than race it.
    result = WebDriverWait(browser, 20).until(
        expected_conditions.presence_of_element_located((By.ID, "result"))
    )
    assert "Effective level: DEBUG" in result.text
    assert browser.find_element(By.ID, "level-flush").text == "DEBUG"
    shoot(browser, "loglevel")
    shell(operated, "put 'ops', 'r2', 'f:q', 'v'\nflush 'ops'\n")

    browser.get(base + "/stacks")
    assert "Process Thread Dump" in browser.page_source
    browser.get(base + "/dump")
    assert "flush: DEBUG" in browser.page_source

    # The region server page charts the last hour.
    browser.get(base + "/rs-status")
    chart = browser.find_element(By.ID, "chart-requests-0")
    line = chart.find_element(By.TAG_NAME, "polyline")
    assert int(line.get_attribute("data-points")) >= 1
    assert browser.find_element(By.ID, "chart-latency-0")
    shoot(browser, "rs-status-charts")

    code, _, err = operated.stop()
    assert code == 0, err
    assert "DEBUG flush: flushing ops," in err, err[-2000:]


PREBUILT = pathlib.Path(__file__).resolve().parents[2] / "coprocessors" / "prebuilt"


def test_coprocessors_on_the_region_server_page(cluster, browser):
    """The region server's page lists each region's coprocessor modules, and one a trap
    unloaded from its region says so."""
    trap = f"file://{PREBUILT / 'runaway.wasm'}|1|mode=trap"
    veto = f"file://{PREBUILT / 'no_bad_values.wasm'}|1|refuse=bad"
    shell(
        cluster,
        "create 'trapping', 'f'\n"
        f"alter 'trapping', METHOD => 'table_att', 'coprocessor' => '{trap}'\n"
        "create 'vetoing', 'f'\n"
        f"alter 'vetoing', METHOD => 'table_att', 'coprocessor' => '{veto}'\n",
    )
    # The trapping module fails the get, and is unloaded from its region.
    run = subprocess.run(
        [BASALT, "shell", "--connect", cluster.rpc, "-n"],
        input="get 'trapping', 'r1'\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "trapped" in run.stdout + run.stderr, run.stdout + run.stderr
    browser.get(f"http://{cluster.info}/rs-status")
    table = browser.find_element(By.ID, "coprocessors")
    browser.execute_script("arguments[0].scrollIntoView()", table)
    rows = table.find_elements(By.TAG_NAME, "tr")[1:]
    listed = {cells(r)[1]: (cells(r)[2], cells(r)[3]) for r in rows}
    assert listed["trapping"][0] == "runaway.wasm"
    assert listed["trapping"][1].startswith("unloaded"), listed
    assert listed["vetoing"] == ("no_bad_values.wasm", "running"), listed
    shoot(browser, "rs-coprocessors")
    with urllib.request.urlopen(f"http://{cluster.info}/metrics", timeout=10) as r:
        metrics = r.read().decode()
    assert 'basalt_coprocessors{state="running"} 1' in metrics, metrics
    assert 'basalt_coprocessors{state="unloaded"} 1' in metrics, metrics


@pytest.fixture(scope="module")
def tenanted(tmp_path_factory):
    """A standalone server whose space quota observer runs every half second."""
    yield from standalone_with(
        tmp_path_factory.mktemp("quotas"), "hbase.master.quotas.observer.chore.period", "500"
    )


def test_quotas_page_and_metrics(tenanted, browser):
    puts = "".join(f"put 'tq', 'r{i:03}', 'f:q', '{'x' * 1000}'\n" for i in range(200))
    shell(
        tenanted,
        "create 'tq', 'f'\n" + puts + "flush 'tq'\n"
        "set_quota TYPE => SPACE, TABLE => 'tq', LIMIT => '50K', POLICY => NO_INSERTS\n"
        "set_quota TYPE => THROTTLE, USER => 'slow', LIMIT => '2req/sec'\n",
    )
    # The throttled user's gets wait and retry: some are refused first.
    time.sleep(1.5)
    run = subprocess.run(
        [BASALT, "shell", "--connect", tenanted.rpc, "--user", "slow", "-n"],
        input="".join("get 'tq', 'r001'\n" for _ in range(6)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stdout + run.stderr

    base = f"http://{tenanted.info}"
    browser.get(base + "/master-status")
    browser.find_element(By.LINK_TEXT, "Quotas").click()
    assert browser.current_url.endswith("/quotas.jsp")
    assert browser.find_element(By.ID, "rpc-throttle").text == "enforced"
    quotas = [cells(r) for r in browser.find_elements(By.CSS_SELECTOR, "#quotas tr.quota")]
    assert ["USER => slow", "TYPE => THROTTLE, THROTTLE_TYPE => REQUEST_NUMBER, "
            "LIMIT => 2req/sec, SCOPE => MACHINE"] in quotas, quotas
    assert any(r[0] == "TABLE => tq" and "NO_INSERTS" in r[1] for r in quotas), quotas
    deadline = time.time() + 20
    while True:
        space = [cells(r) for r in browser.find_elements(By.CSS_SELECTOR, "#space tr.space")]
        if space and space[0][3] == "true":
            break
        assert time.time() < deadline, space
        time.sleep(0.5)
        browser.refresh()
    assert space[0][0] == "tq" and int(space[0][1]) > 50 * 1024 and space[0][4] == "NO_INSERTS"
    users = {cells(r)[0]: cells(r) for r in browser.find_elements(By.CSS_SELECTOR, "#users tr.user")}
    assert int(users["slow"][2]) > 0, users
    shoot(browser, "quotas")

    with urllib.request.urlopen(base + "/metrics", timeout=10) as r:
        metrics = r.read().decode()
    throttled = [
        line for line in metrics.splitlines()
        if line.startswith('basalt_user_throttled_requests_total{user="slow"}')
    ]
    assert throttled and int(throttled[0].split()[-1]) > 0, throttled
    assert 'basalt_quota_space_in_violation{table="tq",policy="NO_INSERTS"} 1' in metrics
    assert 'basalt_table_read_requests_total{table="tq"}' in metrics
