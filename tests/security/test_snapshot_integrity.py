"""A damaged snapshot is an error naming the document, never shorter text; a fixed sanitiser
is never hidden behind text converted by an older one."""

from __future__ import annotations

import gzip
import io
import sqlite3

import pytest
from warcio.archiveiterator import ArchiveIterator

from spanproof.web import snapshots as snapshots_module
from spanproof.web.sanitise import SANITISER_VERSION
from spanproof.web.snapshots import INDEX_NAME, SnapshotDamaged, SnapshotStore

PAGE = (
    b"<html><head><title>Fares</title></head><body>"
    + b"<p>Bus fares rise to 2.10 pounds in May 2025.</p>" * 40
    + b"</body></html>"
)
OTHER = b"<html><body><p>The ferry runs hourly in summer 2025.</p></body></html>"


def _store_two(tmp_path):
    store = SnapshotStore(tmp_path / "s")
    first = store.put("https://a.example/one", OTHER)
    second = store.put("https://a.example/two", PAGE)
    store.close()
    return first, second


def _location(root, doc_id):
    with sqlite3.connect(root / INDEX_NAME) as db:
        return db.execute(
            "SELECT offset, length FROM documents WHERE doc_id=?", (doc_id,)
        ).fetchone()


def test_a_warc_cut_inside_an_indexed_document_is_an_error_naming_it(tmp_path):
    first, second = _store_two(tmp_path)
    offset, length = _location(tmp_path / "s", second.doc_id)
    warc = tmp_path / "s" / "snapshots.warc.gz"
    with open(warc, "rb+") as fh:
        fh.truncate(offset + length - 40)  # cut inside the document's text record
    store = SnapshotStore(tmp_path / "s")
    with pytest.raises(SnapshotDamaged, match=second.doc_id):
        store.text(second.doc_id)
    assert store.text(first.doc_id) == first.text  # the document before the cut is intact


def test_altered_text_with_a_valid_gzip_member_fails_its_digest(tmp_path):
    _, second = _store_two(tmp_path)
    root = tmp_path / "s"
    offset, length = _location(root, second.doc_id)
    warc = root / "snapshots.warc.gz"
    data = warc.read_bytes()
    doc = data[offset : offset + length]
    it = ArchiveIterator(io.BytesIO(doc))
    starts = []
    for record in it:
        starts.append(it.get_record_offset())
        record.content_stream().read()
    member = doc[starts[2] :]  # the conversion record, one gzip member
    altered = gzip.decompress(member).replace(b"2.10 pounds", b"9.10 pounds", 1)
    new_doc = doc[: starts[2]] + gzip.compress(altered)
    warc.write_bytes(data[:offset] + new_doc + data[offset + length :])
    with sqlite3.connect(root / INDEX_NAME) as db:
        db.execute("UPDATE documents SET length=? WHERE doc_id=?", (len(new_doc), second.doc_id))
    store = SnapshotStore(root)
    with pytest.raises(SnapshotDamaged, match=second.doc_id):
        store.get(second.doc_id)


def test_snapshots_record_the_sanitiser_version(tmp_path):
    store = SnapshotStore(tmp_path / "s")
    doc = store.put("https://a.example/x", OTHER)
    store.close()
    assert SnapshotStore(tmp_path / "s").get(doc.doc_id).sanitiser_version == SANITISER_VERSION


def test_a_document_from_an_older_sanitiser_is_converted_again(tmp_path, monkeypatch):
    store = SnapshotStore(tmp_path / "s")
    old = store.put("https://a.example/x", OTHER)
    store.close()
    monkeypatch.setattr(snapshots_module, "SANITISER_VERSION", "next")
    monkeypatch.setattr(
        snapshots_module, "document_text", lambda raw, ct: ("", "Converted by the fixed sanitiser.")
    )
    store = SnapshotStore(tmp_path / "s")
    again = store.put("https://a.example/x", OTHER)
    assert again.doc_id == old.doc_id
    assert again.text == "Converted by the fixed sanitiser." and again.sanitiser_version == "next"
    store.close()
    reopened = SnapshotStore(tmp_path / "s")
    assert reopened.text(old.doc_id) == "Converted by the fixed sanitiser."
    assert len(reopened) == 1
