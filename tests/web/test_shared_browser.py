"""The browser tests share one Chromium per worker: between two tests nothing of the first
is left to the second (the page's storage, extra windows, the console log)."""

from pathlib import Path

from tests.web.conftest import _clear, console_errors


def test_clearing_leaves_nothing_of_the_last_test(tmp_path: Path, browser):
    page = tmp_path / "page.html"
    page.write_text("<script>localStorage.setItem('caravan.theme', 'dark');"
                    "console.error('left over');</script>")
    browser.get(page.as_uri())
    browser.execute_script("window.open('about:blank')")
    assert browser.execute_script("return localStorage.getItem('caravan.theme')") == "dark"
    assert len(browser.window_handles) == 2
    _clear(browser)
    assert browser.window_handles and len(browser.window_handles) == 1
    assert console_errors(browser) == []
    other = tmp_path / "other.html"
    other.write_text("<p>a quiet page</p>")
    browser.get(other.as_uri())                                           # the same origin (file://)
    assert browser.execute_script("return localStorage.getItem('caravan.theme')") is None
