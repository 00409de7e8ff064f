"""The snapshot store: stored once, resolved by id, and intact after a crash."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from spanproof.web.snapshots import SnapshotStore

PAGE = b"<html><head><title>Rates</title></head><body><p>The bank raised rates by 0.25 points. Markets fell.</p></body></html>"


def test_put_get_roundtrip_and_store_once(tmp_path):
    store = SnapshotStore(tmp_path)
    doc = store.put(
        "https://news.example/a",
        PAGE,
        final_url="https://news.example/a/",
        status=200,
        content_type="text/html; charset=utf-8",
        http_headers=[("Content-Encoding", "gzip"), ("X-Served-By", "t")],
    )
    assert (
        doc.title == "Rates" and doc.text == "The bank raised rates by 0.25 points. Markets fell."
    )
    assert doc.final_url == "https://news.example/a/" and doc.url == "https://news.example/a"
    again = store.put("https://news.example/a", PAGE, final_url="https://news.example/a/")
    assert again == doc and len(store) == 1
    reopened = SnapshotStore(tmp_path)
    assert reopened.get(doc.doc_id) == doc
    assert reopened.raw(doc.doc_id) == PAGE
    assert reopened.text(doc.doc_id) == doc.text
    with pytest.raises(KeyError):
        reopened.get("doc_0000000000000000")


def test_plain_text_documents_are_sanitised(tmp_path):
    store = SnapshotStore(tmp_path)
    doc = store.put(
        "https://t.example/r.txt",
        b"See [the data](https://x.example/d).\n\nSecond  para.",
        content_type="text/plain",
    )
    assert doc.text == "See the data.\n\nSecond para."


def test_torn_tail_is_truncated_and_earlier_records_survive(tmp_path):
    store = SnapshotStore(tmp_path)
    docs = [store.put(f"https://n.example/{i}", PAGE + str(i).encode()) for i in range(3)]
    good_size = store.warc_path.stat().st_size
    # A crash mid-write leaves part of a record after the last indexed document.
    scratch = SnapshotStore(tmp_path / "scratch")
    scratch.put("https://n.example/torn", PAGE + b"torn")
    torn = scratch.warc_path.read_bytes()
    store.close()
    with open(tmp_path / "snapshots.warc.gz", "ab") as fh:
        fh.write(torn[: len(torn) // 2])
    reopened = SnapshotStore(tmp_path)
    assert reopened.truncated_bytes == len(torn) // 2
    assert reopened.warc_path.stat().st_size == good_size
    assert [reopened.get(d.doc_id) for d in docs] == docs
    later = reopened.put("https://n.example/later", PAGE + b"later")
    assert SnapshotStore(tmp_path).get(later.doc_id) == later


def test_complete_but_unindexed_records_are_recovered(tmp_path):
    # Crash after the WARC fsync but before the index commit: the document is kept.
    scratch = SnapshotStore(tmp_path / "scratch")
    doc = scratch.put("https://n.example/x", PAGE)
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "snapshots.warc.gz").write_bytes(scratch.warc_path.read_bytes())
    recovered = SnapshotStore(tmp_path / "store")
    assert recovered.recovered == 1
    assert recovered.get(doc.doc_id) == doc


WRITER = textwrap.dedent(
    """
    import sys
    from spanproof.web.snapshots import SnapshotStore
    store = SnapshotStore(sys.argv[1])
    i = 0
    while True:
        body = ("<p>" + ("filler sentence number %d. " % i) * 400 + "</p>").encode()
        store.put("https://k.example/%d" % i, body)
        print(i, flush=True)
        i += 1
    """
)


def test_kill_9_mid_write_loses_at_most_the_record_being_written(tmp_path):
    root = tmp_path / "store"
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(root)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=os.getcwd(),
    )
    acknowledged = -1
    deadline = time.monotonic() + 30
    while acknowledged < 8 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if line:
            acknowledged = int(line.split()[0])
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert acknowledged >= 8
    store = SnapshotStore(root)
    urls = {store.get(d).url for d in store.doc_ids()}
    # every write the writer saw return is there; at most one more (the one in flight)
    assert {f"https://k.example/{i}" for i in range(acknowledged + 1)} <= urls
    assert len(urls) <= acknowledged + 2
    for doc_id in store.doc_ids():
        assert store.get(doc_id).text.startswith("filler sentence number")
    extra = store.put("https://k.example/after", b"<p>after the crash</p>")
    assert SnapshotStore(root).get(extra.doc_id).text == "after the crash"
