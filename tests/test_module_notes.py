"""The reader's notes on a module page never lose text without saying so (issue 16, items 6-8).

In Chromium (Debian's /usr/bin/chromium; never `playwright install`), on the real site's module
page, with the fixtures of test_module_page (a fresh browser context per test, nothing leaves
127.0.0.1, no uncaught error from the module script):

- two tabs of one browser context on the same module follow each other's notes; when both
  changed them (a storage event not yet arrived, or a tab whose save had failed) the reader is
  asked which text to keep, both texts stay on screen until then, and the choice is made with
  the keyboard;
- a full localStorage says the storage is full (not "not allowed"), offers an export, and the
  message goes once a later save succeeds; a refused audience choice is reported too;
- a file that is not UTF-8 text is refused in one line and the notes stay as they were; one that
  starts with a UTF-16 byte order mark is refused saying so (issue 46, item 9), a UTF-8 one is dropped.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from test_module_page import MODULE_PAGE, _open_module, base_url, context  # noqa: F401 (fixtures)

KEY = "scalecore.notes.P10.attention.04"
NOTES = "My notes on this module"
OTHER = "The other tab's text (yours is above)"
VALUE = "t => document.querySelector('[data-scalecore-notes-text]').value === t"

# Storage.prototype.setItem throws a DOMException named window.__refuse while it is set.
REFUSE = """name => {
  if (!window.__realSetItem) {
    window.__realSetItem = Storage.prototype.setItem;
    Storage.prototype.setItem = function (key, value) {
      if (window.__refuse) { throw new DOMException('refused by the test', window.__refuse); }
      return window.__realSetItem.call(this, key, value);
    };
  }
  window.__refuse = name;
}"""

# Fill this origin's localStorage for real, until not even a short value fits.
FILL = """() => {
  let count = 0, chunk = 'x'.repeat(1 << 20);
  for (;;) {
    try { localStorage.setItem('filler.' + count, chunk); count += 1; }
    catch (error) {
      if (error.name !== 'QuotaExceededError') throw error;
      if (chunk.length === 1) break;
      chunk = chunk.slice(0, chunk.length >> 1);
    }
  }
  return count;
}"""


def notes(page):
    return page.get_by_role("textbox", name=NOTES, exact=True)


def stored(page):
    return page.evaluate("k => localStorage.getItem(k)", KEY)


def alert_text(page) -> str:
    return page.locator("[data-scalecore-notes-alert-text]").text_content()


def status_text(page) -> str:
    return page.locator("[data-scalecore-notes-status]").text_content()


def two_tabs(context, base_url, text: str):
    """Tabs A and B on the module page, both showing ``text`` as the saved notes."""
    a = _open_module(context, base_url + MODULE_PAGE)
    b = _open_module(context, base_url + MODULE_PAGE)
    notes(a).fill(text)
    b.wait_for_function(VALUE, arg=text, timeout=5000)
    return a, b


def type_at_end(page, text: str) -> None:
    notes(page).focus()
    page.keyboard.press("Control+End")
    page.keyboard.type(text)


# --------------------------------------------------------------------------------------------
# 6. two tabs
# --------------------------------------------------------------------------------------------


def test_two_tabs_follow_each_other_and_lose_nothing(context, base_url):
    a = _open_module(context, base_url + MODULE_PAGE)
    b = _open_module(context, base_url + MODULE_PAGE)  # opened before A writes anything
    notes(a).fill("First thought.")
    b.wait_for_function(VALUE, arg="First thought.", timeout=5000)  # B follows, without a reload
    assert "changed in another tab" in status_text(b)

    type_at_end(b, " B adds this.")
    a.wait_for_function(VALUE, arg="First thought. B adds this.", timeout=5000)
    type_at_end(a, " A again.")  # the issue: this used to overwrite B's text
    assert stored(a) == "First thought. B adds this. A again."
    b.wait_for_function(VALUE, arg="First thought. B adds this. A again.", timeout=5000)
    assert alert_text(a) == alert_text(b) == ""  # following is no conflict


@pytest.mark.parametrize("which, key, expected", [
    ("Keep mine", "Enter", "Shared start.\nFrom this tab."),
    ("Keep the other tab's", "Space", "Shared start.\nFrom the other tab."),
    ("Keep both (merged)", "Enter", "Shared start.\nFrom this tab.\nFrom the other tab."),
])
def test_when_both_tabs_changed_the_notes_the_reader_chooses(context, base_url, which, key, expected):
    a, b = two_tabs(context, base_url, "Shared start.\n")
    # Another tab saved while A's storage event is still on its way (events do not reach the tab
    # that wrote, so A writes it itself: A's next save finds storage changed under it).
    a.evaluate("([k, v]) => localStorage.setItem(k, v)", [KEY, "Shared start.\nFrom the other tab."])
    b.wait_for_function(VALUE, arg="Shared start.\nFrom the other tab.", timeout=5000)
    type_at_end(a, "From this tab")

    alert = a.get_by_role("alert").filter(has_text="changed in another tab")
    assert "Keep which?" in alert.text_content()
    assert a.get_by_role("group", name="changed in another tab").is_visible()
    other = a.get_by_role("textbox", name=OTHER, exact=True)
    assert other.input_value() == "Shared start.\nFrom the other tab."  # both texts on screen
    assert other.get_attribute("readonly") is not None
    a.keyboard.type(".")  # typing on while the choice waits saves nothing over the other text
    assert notes(a).input_value() == "Shared start.\nFrom this tab."
    assert stored(a) == "Shared start.\nFrom the other tab."

    a.get_by_role("button", name=which, exact=True).focus()
    a.keyboard.press(key)
    assert notes(a).input_value() == expected
    assert stored(a) == expected
    assert alert_text(a) == ""
    assert not other.is_visible()
    assert a.evaluate("document.activeElement.matches('[data-scalecore-notes-text]')")
    assert {"Keep mine": "the other tab's text was replaced", "Keep the other tab's": "this tab's text was replaced",
            "Keep both (merged)": "Kept both"}[which] in status_text(a)
    b.wait_for_function(VALUE, arg=expected, timeout=5000)  # B had nothing unsaved: it follows
    assert alert_text(b) == ""


def test_a_tab_with_unsaved_text_asks_when_another_tab_saves(context, base_url):
    a, b = two_tabs(context, base_url, "Base.")
    a.evaluate(REFUSE, "QuotaExceededError")  # A's saves fail from now on (B's do not)
    type_at_end(a, " Unsaved in A.")
    assert "storage for this site is full" in alert_text(a)
    type_at_end(b, " Saved in B.")  # its storage event reaches A, which has text of its own
    a.wait_for_function("() => /changed in another tab/.test(document.querySelector("
                        "'[data-scalecore-notes-alert-text]').textContent)", timeout=5000)
    assert notes(a).input_value() == "Base. Unsaved in A."
    assert a.get_by_role("textbox", name=OTHER, exact=True).input_value() == "Base. Saved in B."
    assert stored(a) == "Base. Saved in B."

    a.evaluate(REFUSE, "")  # room again
    a.get_by_role("button", name="Keep both (merged)").click()
    assert stored(a) == "Base. Unsaved in A.\nBase. Saved in B."
    assert alert_text(a) == ""
    b.wait_for_function(VALUE, arg="Base. Unsaved in A.\nBase. Saved in B.", timeout=5000)


# --------------------------------------------------------------------------------------------
# 7. storage full, or not allowed
# --------------------------------------------------------------------------------------------


def test_full_storage_says_so_offers_export_and_clears_after_a_save(context, base_url):
    page = _open_module(context, base_url + MODULE_PAGE)
    notes(page).fill("Before the storage filled up.")
    assert page.evaluate(FILL) > 0
    type_at_end(page, " Written once it was full, and longer than any room left.")
    written = "Before the storage filled up. Written once it was full, and longer than any room left."
    message = alert_text(page)
    assert "this browser\u2019s storage for this site is full" in message and "Export" in message, message
    assert "does not allow" not in message
    assert page.get_by_role("alert").filter(has_text="is full").is_visible()
    assert stored(page) != written

    offer = page.get_by_role("button", name="Export my notes (.md)", exact=True)
    with page.expect_download() as download:
        offer.focus()
        page.keyboard.press("Enter")
    assert Path(download.value.path()).read_text(encoding="utf-8").endswith("\n" + written)

    page.evaluate("() => Object.keys(localStorage).filter(k => k.startsWith('filler.'))"
                  ".forEach(k => localStorage.removeItem(k))")
    type_at_end(page, "!")
    assert stored(page) == written + "!"
    assert alert_text(page) == ""
    assert not offer.is_visible()
    assert "kept in this browser again" in status_text(page)


def test_storage_not_allowed_keeps_its_own_message(context, base_url):
    page = _open_module(context, base_url + MODULE_PAGE)
    page.evaluate(REFUSE, "SecurityError")
    notes(page).fill("Somewhere storage is blocked.")
    assert "this browser does not allow local storage here" in alert_text(page)
    assert page.get_by_role("button", name="Export my notes (.md)", exact=True).is_visible()
    page.evaluate(REFUSE, "")
    type_at_end(page, " Now it is not.")
    assert alert_text(page) == ""
    assert stored(page) == "Somewhere storage is blocked. Now it is not."


def test_unsaved_notes_make_the_browser_ask_before_leaving(context, base_url):
    page = _open_module(context, base_url + MODULE_PAGE)
    page.evaluate(REFUSE, "QuotaExceededError")
    notes(page).click()  # the browser asks only on a page the reader has used
    page.keyboard.type("Not saved anywhere but on screen.")
    asked = []

    def answer(dialog):
        asked.append(dialog.type)
        dialog.accept()

    page.on("dialog", answer)
    with page.expect_event("close", timeout=5000):
        page.close(run_before_unload=True)
    assert asked == ["beforeunload"]


def test_a_refused_audience_choice_is_reported(context, base_url):
    page = _open_module(context, base_url + MODULE_PAGE)
    group = page.get_by_role("group", name="Show the side notes for")
    problem = page.locator("[data-scalecore-audience-problem]")
    page.evaluate(REFUSE, "QuotaExceededError")
    group.get_by_text("Guests").click()
    assert group.get_by_role("radio", name="Guests").is_checked()  # it still applies to the page
    assert page.locator(".admonition.practitioner").first.is_hidden()
    assert problem.get_attribute("role") == "alert"
    assert "could not be kept" in problem.text_content() and "storage for this site is full" in problem.text_content()
    assert page.evaluate("localStorage.getItem('scalecore.audience')") is None

    page.evaluate(REFUSE, "")
    group.get_by_text("Language pros").click()
    assert problem.text_content() == ""
    assert page.evaluate("localStorage.getItem('scalecore.audience')") == "language-pro"


# --------------------------------------------------------------------------------------------
# 8. importing what is not text
# --------------------------------------------------------------------------------------------

NOT_TEXT = {
    "picture.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00" + bytes(range(256)) * 8,
    "nul.md": "valid UTF-8 with a NUL \0 inside\n".encode(),
    "latin-1.md": "caf\u00e9 au lait\n".encode("latin-1"),
}


@pytest.mark.parametrize("name", sorted(NOT_TEXT))
@pytest.mark.parametrize("before", ["", "Keep me as I am."])
def test_importing_what_is_not_text_is_refused_in_one_line(context, base_url, tmp_path, name, before):
    page = _open_module(context, base_url + MODULE_PAGE)
    notes(page).fill(before)
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    path = tmp_path / name
    path.write_bytes(NOT_TEXT[name])
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name="Import a .md file").click()
    chooser.value.set_files(str(path))
    page.wait_for_function("() => /not a UTF-8 text file/.test(document.querySelector("
                           "'[data-scalecore-notes-status]').textContent)", timeout=5000)
    message = status_text(page)
    assert message == f"{name} is not a UTF-8 text file (such as a .md file); nothing was imported."
    assert "\n" not in message
    assert notes(page).input_value() == before
    assert (stored(page) or "") == before
    assert dialogs == []  # refused before asking to replace anything


UTF16 = {  # a file starting with a UTF-16 byte order mark: Notepad's text, or a binary file behind those two bytes
    "windows.txt": "\ufeffNotes saved by Notepad: caf\u00e9\r\nsecond line\r\n".encode("utf-16-le"),
    "big-endian.md": "\ufeffNotes\n".encode("utf-16-be"),
    "disguised.md": b"\xff\xfe" + bytes(range(32, 256)) * 4,
}


@pytest.mark.parametrize("name", sorted(UTF16))
def test_a_file_with_a_utf16_byte_order_mark_is_refused_saying_so(context, base_url, tmp_path, name):
    page = _open_module(context, base_url + MODULE_PAGE)
    notes(page).fill("Keep me as I am.")
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    path = tmp_path / name
    path.write_bytes(UTF16[name])
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name="Import a .md file").click()
    chooser.value.set_files(str(path))
    page.wait_for_function("() => /nothing was imported/.test(document.querySelector("
                           "'[data-scalecore-notes-status]').textContent)", timeout=5000)
    assert status_text(page) == (
        f"{name} is UTF-16 text (it starts with UTF-16's byte order mark); notes import UTF-8 only. Save it as UTF-8 "
        "(in most editors: Save as, encoding UTF-8) and import it again; nothing was imported.")
    assert notes(page).input_value() == stored(page) == "Keep me as I am."
    assert dialogs == []


def test_a_utf8_byte_order_mark_is_dropped(context, base_url, tmp_path):
    page = _open_module(context, base_url + MODULE_PAGE)
    path = tmp_path / "windows.txt"
    path.write_bytes("\ufeffNotes saved by Notepad: caf\u00e9\r\nsecond line\r\n".encode("utf-8"))
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name="Import a .md file").click()
    chooser.value.set_files(str(path))
    page.wait_for_function("() => /Imported windows\\.txt/.test(document.querySelector("
                           "'[data-scalecore-notes-status]').textContent)", timeout=5000)
    assert notes(page).input_value() == stored(page) == "Notes saved by Notepad: caf\u00e9\nsecond line\n"


def _order(text: str, tab: str) -> list[int]:
    return [int(word[1:]) for word in text.split() if word.startswith(tab) and word[1:].isdigit()]


def test_words_typed_in_turn_in_two_tabs_keep_their_order(context, base_url):
    """The sequence that scrambled: ' A0'...' A4' typed in one tab and ' B0'...' B4' in another,
    150 ms apart, each where its reader's caret is. Every word is kept, and each tab's words stay
    in the order they were typed (they were stored A0 A1 A2 A3 A4 B4 B3 B2 B1 B0: a tab that
    followed the other's text kept its caret's number, not its place, so its next word went in
    before its last one)."""
    a = _open_module(context, base_url + MODULE_PAGE)
    b = _open_module(context, base_url + MODULE_PAGE)
    for page in (a, b):
        notes(page).click()
        page.keyboard.press("Control+End")
    for i in range(5):
        a.bring_to_front()
        notes(a).focus()
        a.keyboard.type(f" A{i}")
        a.wait_for_timeout(150)
        b.bring_to_front()
        notes(b).focus()
        b.keyboard.type(f" B{i}")
        b.wait_for_timeout(150)
    a.wait_for_timeout(500)
    final = stored(a)
    conflict = [page for page in (a, b) if page.locator("[data-scalecore-notes-conflict]").is_visible()]
    if conflict:  # the reader is told and shown both versions: nothing is lost either way
        page = conflict[0]
        both = notes(page).input_value() + "\n" + page.get_by_role("textbox", name=OTHER).input_value()
        assert sorted(_order(both, "A")) == list(range(5)) and sorted(_order(both, "B")) == list(range(5)), both
        return
    assert _order(final, "A") == list(range(5)), final
    assert _order(final, "B") == list(range(5)), final
    assert notes(a).input_value() == notes(b).input_value() == final
