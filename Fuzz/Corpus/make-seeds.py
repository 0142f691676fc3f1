#!/usr/bin/env python3
"""Writes the fuzzers' seed corpus (one folder a target), a seed for each hostile input the
project has met: python3 Fuzz/Corpus/make-seeds.py. scripts/fuzz runs it; the seeds are kept."""
import os, struct, sys

here = os.path.dirname(os.path.abspath(__file__))

def write(target, name, data):
    os.makedirs(os.path.join(here, target), exist_ok=True)
    with open(os.path.join(here, target, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())

def box(kind, content=b"", size=None):
    return struct.pack(">I", len(content) + 8 if size is None else size) + kind.encode("latin-1") + content

def wide(kind, content, size):
    return struct.pack(">I", 1) + kind.encode() + struct.pack(">Q", size) + content

ftyp = box("ftyp", b"M4A \0\0\0\0isom")
mvhd = box("mvhd", b"\0\0\0\0" + b"\0" * 8 + struct.pack(">II", 44100, 1323000) + b"\0" * 80)
def track(table):
    return box("trak", box("mdia", box("minf", box("stbl", table))))
def co64(offset):
    return box("co64", b"\0\0\0\0" + struct.pack(">IQ", 1, offset))
def stco(offset):
    return box("stco", b"\0\0\0\0" + struct.pack(">II", 1, offset))
ilst = box("ilst", box("\xa9nam", box("data", b"\0\0\0\1\0\0\0\0Old")))
meta = box("meta", b"\0\0\0\0" + box("hdlr", b"\0" * 8 + b"mdirappl" + b"\0" * 9) + ilst)

# MP4 and WAV files, raw (FuzzMediaTags).
write("FuzzMediaTags", "co64-near-int64-max.m4a", ftyp + box("moov", mvhd + track(co64(2**63 - 6))) + box("mdat", b"\1\2\3"))
write("FuzzMediaTags", "co64-in-file.m4a", ftyp + box("moov", mvhd + track(co64(200))) + box("mdat", b"\1\2\3"))
write("FuzzMediaTags", "stco-tagged.m4a", ftyp + box("moov", mvhd + track(stco(300)) + box("udta", meta)) + box("free", b"\0" * 64) + box("mdat", b"\1\2\3"))
write("FuzzMediaTags", "first-box-2-63.m4a", wide("ftyp", b"M4A ", 2**63))
write("FuzzMediaTags", "second-box-2-64-1.m4a", ftyp + wide("free", b"", 2**64 - 1))
write("FuzzMediaTags", "size-0-mdat.m4a", ftyp + box("moov", mvhd) + box("mdat", b"\1\2\3\4", size=0))
write("FuzzMediaTags", "mvhd-v1.m4a", ftyp + box("moov", box("mvhd", b"\1\0\0\0" + b"\0" * 16 + struct.pack(">IQ", 1000, 2**64 - 1) + b"\0" * 80)))
write("FuzzMediaTags", "moof.m4a", ftyp + box("moov", mvhd) + box("moof") + box("mdat", b"\1"))
fmt = b"fmt " + struct.pack("<IHHIIHH", 16, 1, 1, 22050, 44100, 2, 16)
write("FuzzMediaTags", "min.wav", b"RIFF" + struct.pack("<I", 44) + b"WAVE" + fmt + b"data" + struct.pack("<I", 4) + b"\0\0\1\1")
write("FuzzMediaTags", "data-past-end.wav", b"RIFF" + struct.pack("<I", 2**32 - 1) + b"WAVE" + fmt + b"data" + struct.pack("<I", 2**32 - 1) + b"\0\0")
write("FuzzMediaTags", "odd-list.wav", b"RIFF" + struct.pack("<I", 60) + b"WAVE" + fmt + b"LIST" + struct.pack("<I", 9) + b"INFOINAM\1" + b"data" + struct.pack("<I", 1) + b"\0")

# Recipes for the structure-aware targets (FuzzMP4, FuzzWAV): the choices that build a moov-first
# file with one co64 entry of Int64.max - 5, and a WAV whose data chunk states 2^32 - 1 bytes.
write("FuzzMP4", "co64-near-int64-max", bytes([0, 0, 0, 1, 0, 1, 1, 5, 3, 0, 2, 0, 2, 0, 2, 0, 0, 0]))
write("FuzzMP4", "moov-mdat-free", bytes([2, 0, 1, 0, 0, 3, 0, 9, 1, 255, 255, 3, 4, 0, 4, 40, 0]))
write("FuzzWAV", "data-2-32", bytes([1, 0, 2, 0, 5, 0, 2, 2, 10, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0]))

# The URL policy: a URL, the catalog's host, then what the URL's host resolved to.
for name, text in [
    ("port-999999", "http://127.0.0.1:999999/a.m4a\nitunes.apple.com"),
    ("short-127", "http://127.1:8080/a.m4a\nitunes.apple.com"),
    ("decimal-127", "http://2130706433/a.m4a\nitunes.apple.com"),
    ("hex-127", "http://0x7f000001/a.m4a\nitunes.apple.com"),
    ("octal-127", "http://0177.0.0.1/a.m4a\nitunes.apple.com"),
    ("zero", "http://0/a.m4a\nitunes.apple.com"),
    ("mapped-v6", "http://[::ffff:127.0.0.1]/a.m4a\nitunes.apple.com"),
    ("name-to-loopback", "http://evil.example/a.m4a\nitunes.apple.com\n127.0.0.1"),
    ("name-to-private", "https://cdn.example/a.m4a\nitunes.apple.com\n93.184.216.34\n192.168.1.1"),
    ("loopback-catalog", "http://127.0.0.1:9/a.m4a\n127.0.0.1"),
    ("user-info", "http://user:pw@example.com/a.m4a\nitunes.apple.com"),
]:
    write("FuzzURLPolicy", name, text)

# Range and Content-Range headers.
for name, text in [("open", "bytes=100-"), ("suffix", "bytes=-10"), ("first", "bytes=0-0"), ("plus", "bytes=+5-9"),
                   ("case", "Bytes=0-1"), ("content", "bytes 0-99/100"), ("unknown-total", "bytes 5-9/*"),
                   ("star", "bytes */100"), ("huge", "bytes=0-99999999999999999999999")]:
    write("FuzzRanges", name, text)

# Catalog answers: the smallest song, and an error whose message carries terminal escapes.
write("FuzzCatalogDecoder", "song.json", '{"resultCount":1,"results":[{"wrapperType":"track","kind":"song","trackId":1,'
      '"trackName":"T","previewUrl":"https://e.com/p.m4a"}]}')
write("FuzzCatalogDecoder", "escapes.json", '{"errorMessage":"\\u001b]2;owned\\u0007\\u001b[2J","queryParameters":{}}')
write("FuzzCatalogDecoder", "port.json", '{"resultCount":1,"results":[{"wrapperType":"track","kind":"song","trackId":2,'
      '"trackName":"T","previewUrl":"http://a.example:999999/p.m4a"}]}')
