"""The info pages in a real headless browser (Debian's chromium, driven by selenium): a
`basalt standalone` gets a workload through happybase with one hot region, and the master,
table and region server pages must load, link to each other and show the numbers the
workload made. Each page's screenshot is saved under target/web-screenshots/ for a person to
look at."""

import os
import pathlib
import subprocess
import urllib.request

import happybase
import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

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
