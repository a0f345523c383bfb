#!/usr/bin/env python3
"""The competition's page in a real browser: headless Chromium, driven by
Selenium (Debian's python3-selenium and chromium-driver), with every network
request but the server's own sent to a dead proxy.

Two tasks, three entrants, all through the page: each entrant types a token
and signs in, picks a task and types a kernel into the editor (CodeMirror),
submits, and sees its verdict and rank; a hack is rejected and shown as such
on the board and on its own page; a bad token is refused on the page and
nothing is stored. The board ranks the entries, draws a chart per board and
updates live when a submission arrives by the API. Screenshots go to
ARTIFACT_DIR (competition-*.png).

Usage: competition_browser.py CUDAL1 SOURCE_DIR ARTIFACT_DIR
"""
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from competition_fixture import TOKENS, Checks, Server, call, hidden_marks_in, source, write_competition  # noqa: E402

try:
    from selenium import webdriver
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select, WebDriverWait
except ImportError as e:
    raise SystemExit(f"FAIL: no Selenium for {sys.executable} ({e}): scripts/install-deps.sh installs python3-selenium")

CUDAL1, SRC, ARTIFACTS = sys.argv[1], sys.argv[2], sys.argv[3]
TMP = tempfile.mkdtemp(prefix="competition-browser-")
check = Checks()


def browser():
    driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if not os.path.exists(driver_path) or not binary:
        raise SystemExit("FAIL: no chromium and chromedriver (scripts/install-deps.sh installs chromium-driver)")
    o = Options()
    o.binary_location = binary
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,2200", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync",
              f"--user-data-dir={TMP}/profile",
              # Anything but the server (loopback is never proxied) goes to a dead proxy: the page
              # must need no network beyond the server.
              "--proxy-server=http://127.0.0.1:9"):
        o.add_argument(a)
    o.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver_path), options=o)


def wait_for(d, what, cond, timeout=180):
    try:
        return WebDriverWait(d, timeout, poll_frequency=0.2).until(lambda _: cond())
    except TimeoutException:
        check(False, f"timed out waiting for {what}")
        return None


def shot(d, name):
    os.makedirs(ARTIFACTS, exist_ok=True)
    path = os.path.join(ARTIFACTS, f"competition-{name}.png")
    d.save_screenshot(path)
    return path


def sign_in(d, token, expect):
    box = d.find_element(By.ID, "token")
    box.clear()
    box.send_keys(token)
    d.find_element(By.ID, "sign-in").click()
    return wait_for(d, f"sign-in as {expect}", lambda: expect in d.find_element(By.ID, "who").text, 30)


def type_code(d, text):
    """Types `text` into the editor, key by key, over what it held."""
    content = d.find_element(By.CSS_SELECTOR, "#editor .cm-content")
    content.click()
    content.send_keys(Keys.CONTROL, "a")
    content.send_keys(Keys.DELETE)
    for line in text.rstrip("\n").split("\n"):
        content.send_keys(line)
        content.send_keys(Keys.ENTER)
    # What the editor holds, line by line (auto-indentation aside).
    return [l.strip() for l in d.execute_script(
        "return Array.from(document.querySelectorAll('#editor .cm-line')).map(e => e.textContent)") if l.strip()]


def submit_through_page(d, who, task, fixture):
    """Signs `who` in, types the fixture into the editor, submits; the result line once judged."""
    sign_in(d, TOKENS[who], "signed in as " + who)
    Select(d.find_element(By.ID, "task")).select_by_value(task)
    code = source(SRC, fixture)
    typed = type_code(d, code)
    want = [l.strip() for l in code.split("\n") if l.strip()]
    check(typed == want, f"{who}'s kernel is in the editor as typed ({len(typed)} lines)")
    d.find_element(By.ID, "submit").click()
    out = d.find_element(By.ID, "submit-result")
    verdict = wait_for(d, f"{who}'s verdict on {task}", lambda: out.get_attribute("data-verdict"), 240)
    return verdict, out.text


def board_row(d, task, who):
    rows = d.find_elements(By.CSS_SELECTOR, f'table.leaderboard[data-task="{task}"] tr[data-participant="{who}"]')
    return rows[0] if rows else None


def stored(path):
    db = sqlite3.connect(path)
    try:
        return db.execute("select count(*) from submissions").fetchone()[0]
    finally:
        db.close()


def main():
    comp = write_competition(TMP, SRC, name="browser-cup")
    store = os.path.join(TMP, "browser-cup.sqlite")
    srv = Server(CUDAL1, TMP, "browser", comp, store=store)
    d = None
    try:
        d = browser()
        d.get(srv.base + "/")
        wait_for(d, "the page to load the competition", lambda: len(d.find_elements(By.CSS_SELECTOR, "#task option")) == 2, 30)
        check(d.find_elements(By.CSS_SELECTOR, "#editor .cm-editor") != [], "the page has the bundled code editor (CodeMirror)")
        check(d.find_element(By.ID, "clock").get_attribute("data-state") == "open", "the page says the competition is open")
        wait_for(d, "the live events", lambda: d.find_element(By.ID, "live").text == "(live)", 30)

        # A bad token is refused on the page, and nothing is stored.
        sign_in(d, "not-an-entrant", "not one of this competition")
        Select(d.find_element(By.ID, "task")).select_by_value("swish")
        type_code(d, source(SRC, "tests/fixtures/competition/typed_swish.cpp"))
        d.find_element(By.ID, "submit").click()
        out = d.find_element(By.ID, "submit-result")
        wait_for(d, "the refusal", lambda: out.get_attribute("data-status") == "401", 30)
        check("Refused" in out.text and "not one of this competition's entrants" in out.text,
              f"a bad token is refused on the page ({out.text})")
        shot(d, "bad-token")
        check(stored(store) == 0, "and nothing was stored")

        # Three entrants, two tasks, through the editor.
        verdict, text = submit_through_page(d, "alice", "swish", "tests/fixtures/competition/typed_swish.cpp")
        check(verdict == "correct" and "rank 1 of 1 on" in text, f"alice's swish: {text}")
        shot(d, "editor")
        verdict, text = submit_through_page(d, "bob", "rowsoftmax", "tests/fixtures/competition/typed_rowsoftmax.cpp")
        check(verdict == "correct" and "rank 1 of 1 on" in text, f"bob's rowsoftmax: {text}")
        verdict, text = submit_through_page(d, "bob", "swish", "tests/fixtures/competition/typed_public_shape.cpp")
        check(verdict == "incorrect" and "(hidden run)" in text,
              f"bob's kernel that hard-codes the public sizes fails a hidden run: {text}")
        verdict, text = submit_through_page(d, "carol", "swish", "tests/fixtures/competition/typed_hack_thread.cpp")
        check(verdict == "rejected" and "rejected: background_thread" in text, f"carol's hack is rejected: {text}")

        # The board, live: entries ranked, the hack listed as rejected, a chart per board.
        wait_for(d, "the board to list alice and bob", lambda: board_row(d, "swish", "alice") and board_row(d, "rowsoftmax", "bob"), 30)
        check(board_row(d, "swish", "alice").get_attribute("data-rank") == "1" and board_row(d, "swish", "carol") is None
              and board_row(d, "swish", "bob") is None,
              "swish's board: alice at rank 1; neither the hack nor the hard-coded kernel")
        hack_rows = d.find_elements(By.CSS_SELECTOR, '#recent tr[data-participant="carol"][data-verdict="rejected"]')
        hack = [(r.get_attribute("data-id"), r.text) for r in hack_rows]  # (the page redraws its rows at each change)
        check(len(hack) == 1 and "rejected: background_thread" in hack[0][1],
              "the newest submissions show carol's hack as rejected")
        wait_for(d, "two charts", lambda: d.find_element(By.ID, "boards").get_attribute("data-charts") == "2", 30)
        canvases = d.execute_script("return Array.from(document.querySelectorAll('#boards canvas')).map(c => c.width * c.height)")
        check(len(canvases) == 2 and all(a > 0 for a in canvases), f"a chart per board, drawn ({canvases})")

        # Live: carol's correct kernel by the API appears on the open page without a reload.
        version = int(d.find_element(By.ID, "boards").get_attribute("data-version"))
        s, b, _ = call(srv.base, "/v1/competition/submissions",
                       {"task": "swish", "code": source(SRC, "examples/swish/cpu/correct_joined_thread.cpp"), "wait": True},
                       token=TOKENS["carol"])
        check(s == 200 and b["verdict"] == "correct", f"carol's correct swish by the API ({b.get('verdict')})")
        wait_for(d, "carol on the open page", lambda: board_row(d, "swish", "carol") is not None, 30)
        rows = d.find_elements(By.CSS_SELECTOR, 'table.leaderboard[data-task="swish"] tbody tr')
        check(int(d.find_element(By.ID, "boards").get_attribute("data-version")) > version and len(rows) == 2 and
              [r.get_attribute("data-rank") for r in rows] == ["1", "2"],
              f"the open page updated itself: swish now ranks {[r.get_attribute('data-participant') for r in rows]}")
        s, board, _ = call(srv.base, "/v1/competition/board")
        api_order = [e["participant"] for e in board["tasks"][0]["boards"][0]["entries"]]
        check([r.get_attribute("data-participant") for r in rows] == api_order, f"in the API's order ({api_order})")
        d.execute_script("window.scrollTo(0, 0)")
        shot(d, "board")
        page_text = d.find_element(By.TAG_NAME, "body").text
        check(not hidden_marks_in(page_text), f"the page shows no hidden size or seed ({hidden_marks_in(page_text)})")

        # A submission's own page: carol's hack, seen by carol (her token is the page's).
        d.execute_script(f"document.querySelector('#recent tr[data-id=\"{hack[0][0]}\"] a').click()")
        wait_for(d, "the hack's page", lambda: d.find_element(By.ID, "sub-verdict").get_attribute("data-verdict") == "rejected", 30)
        hacks = d.find_element(By.ID, "sub-hacks").text
        check("Hack caught: background_thread" in hacks and d.find_element(By.ID, "sub-code-box").is_displayed() and
              "std::thread" in d.find_element(By.ID, "sub-code").text,
              f"the hack's page shows the hack caught and, to its entrant, the code ({hacks[:80]})")
        shot(d, "hack")
        # Alice's page, seen by carol: the verdict, the figures, not the code.
        alice_id = None
        for e in board["tasks"][0]["boards"][0]["entries"]:
            if e["participant"] == "alice":
                alice_id = e["id"]
        d.get(f"{srv.base}/submissions/{alice_id}")
        wait_for(d, "alice's page", lambda: d.find_element(By.ID, "sub-verdict").get_attribute("data-verdict") == "correct", 30)
        figures = d.find_element(By.ID, "sub-figures").text
        check("rank now" in figures and "hidden runs pass" in figures and not d.find_element(By.ID, "sub-code-box").is_displayed()
              and "shown to their entrant only" in d.find_element(By.ID, "sub-note").text,
              "alice's page shows her verdict, rank and hidden verdict to carol, not her code")
        shot(d, "submission")

        # Only the server was asked for anything; no script error.
        resources = d.execute_script("return performance.getEntriesByType('resource').map(r => r.name)")
        foreign = [r for r in resources if not r.startswith(srv.base)]
        check(not foreign, f"every request went to the server ({len(resources)} requests; others: {foreign[:3]})")
        # (The refused token's 401s are logged by the browser as failed loads, not script errors.)
        errors = [l["message"] for l in d.get_log("browser") if l["level"] == "SEVERE" and "status of 401" not in l["message"]]
        check(not errors, f"no script errors ({errors[:2]})")
        check(stored(store) == 5, f"five submissions stored, the refused one not ({stored(store)})")
        print("screenshots: " + ", ".join(sorted(f for f in os.listdir(ARTIFACTS) if f.startswith("competition-"))))
    finally:
        if d:
            d.quit()
        srv.stop()
        if check.failures:
            print("--- server log\n" + open(srv.log_path).read()[-4000:])


try:
    main()
finally:
    shutil.rmtree(TMP, ignore_errors=True)
print(f"{len(check.failures)} failed" if check.failures else "all passed")
sys.exit(1 if check.failures else 0)
