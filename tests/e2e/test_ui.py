"""The web UI (--ui-listen) in a real browser: headless Chromium (Debian's chromium and
chromium-driver, driven by selenium) loads the page while a streaming aggregation and a long
batch query run; the charts get points, a screenshot is taken (kept in the test's tmp dir;
copied to docs/ui.png for the README only when WEIR_UPDATE_UI_SCREENSHOT=1, so a test run leaves
the tree as it was), the Cancel button stops the batch operation and the
Stop button the streaming query."""
import json
import os
import shutil
import socket
import threading
import time
import urllib.request

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import start_server, stop_server

DOCS_SCREENSHOT = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "ui.png")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def ui_server():
    port = _free_port()
    s = start_server(["--ui-listen", f"127.0.0.1:{port}"])
    yield s, f"http://127.0.0.1:{port}"
    stop_server(s)


@pytest.fixture
def browser():
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    assert chromium and driver, "Debian's chromium and chromium-driver are needed (scripts/test.sh installs them)"
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1300,1500"):
        opts.add_argument(a)
    b = webdriver.Chrome(options=opts, service=Service(executable_path=driver))
    yield b
    b.quit()


def overview(base):
    with urllib.request.urlopen(base + "/api/overview", timeout=10) as r:
        return json.load(r)


def chart_points(browser, chart):
    els = browser.find_elements(By.ID, "chart-" + chart)
    return int(els[0].get_attribute("data-points")) if els else 0


def test_ui_charts_cancel_and_stop(ui_server, browser, tmp_path):
    server, base = ui_server
    spark = SparkSession.builder.remote(server.url).create()
    try:
        spark.conf.set("spark.sql.shuffle.partitions", "2")
        agg = (spark.readStream.format("rate").option("rowsPerSecond", 200).load()
               .withWatermark("timestamp", "1 second").groupBy(F.window("timestamp", "1 second")).count())
        q = (agg.writeStream.format("memory").queryName("ui_rates").outputMode("append")
             .trigger(processingTime="200 milliseconds").start())

        # A batch query that would run for minutes: one partition of rows a Python UDF sleeps on.
        @F.udf("long")
        def slow(x):
            import time as t
            t.sleep(0.5)
            return x

        outcome = {}

        def run_slow():
            spark.addTag("ui-slow")
            try:
                outcome["rows"] = spark.range(0, 600, 1, 1).select(slow("id")).collect()
            except Exception as e:  # the cancel's error
                outcome["error"] = e

        slow_thread = threading.Thread(target=run_slow, daemon=True)
        slow_thread.start()

        browser.get(base + "/")
        wait = WebDriverWait(browser, 60, poll_frequency=0.2)
        # The page selects the running query and its charts fill as batches complete.
        wait.until(lambda b: chart_points(b, "rate") >= 8 and chart_points(b, "ops") >= 8
                   and chart_points(b, "state-rows") >= 8 and chart_points(b, "watermark") >= 1)
        assert chart_points(browser, "duration") >= 8
        assert "ui_rates" in browser.find_element(By.ID, "detail-title").text
        wait.until(lambda b: "StateStore" in b.find_element(By.ID, "plan").get_attribute("textContent")
                   or "Aggregate" in b.find_element(By.ID, "plan").get_attribute("textContent"))
        # The batch operation is listed with its tag and a Cancel button.
        slow_row = wait.until(lambda b: next((r for r in b.find_elements(By.CSS_SELECTOR, "tr.operation")
                                              if "ui-slow" in r.text and r.find_elements(By.CSS_SELECTOR, "button.cancel")), None))
        op_id = slow_row.get_attribute("data-operation")

        shot = tmp_path / "ui.png"
        assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
        if os.environ.get("WEIR_UPDATE_UI_SCREENSHOT") == "1":
            shutil.copyfile(shot, DOCS_SCREENSHOT)

        slow_row.find_element(By.CSS_SELECTOR, "button.cancel").click()
        slow_thread.join(timeout=30)
        assert not slow_thread.is_alive(), "the cancelled operation still runs"
        assert "rows" not in outcome, "the slow query finished instead of being cancelled"
        assert "OPERATION_CANCELED" in str(outcome["error"]), outcome["error"]
        ops = [o for s in overview(base)["sessions"] for o in s["operations"] if o["id"] == op_id]
        assert all(o["state"] != "running" for o in ops), ops

        # Stop ends the streaming query as StreamingQuery.stop() does.
        assert q.isActive
        browser.find_element(By.CSS_SELECTOR, f'button.stop[data-query="{q.id}"]').click()
        assert q.awaitTermination(30), "the query did not stop"
        assert q.exception() is None
        run = next(r for r in overview(base)["queries"] if r["runId"] == q.runId)
        assert not run["active"] and run["batches"] >= 8, run
    finally:
        for a in spark.streams.active:
            a.stop()
        spark.stop()
